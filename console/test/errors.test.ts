import { describe, expect, it } from 'vitest';
import { AtelierError } from '../../sdk/src/errors.ts';
import { describeError, errorLine, fieldLabel } from '../src/errors.ts';
import { ACCEPT, uploadProblem } from '../src/upload.ts';

const api = (status: number, code: string, message: string, details?: Record<string, unknown>) =>
  new AtelierError({ status, code, message, requestId: 'req-1', ...(details ? { details } : {}) });

describe('errors for people', () => {
  it('says what happened and what to do about an upload the API refuses, with the code in the details', () => {
    const v = describeError(
      api(
        400,
        'INVALID_REQUEST',
        'body.files.0.fileType Files of type application/x-ms-dos-executable are not supported; allowed: JPEG, PNG',
        { reason: 'unsupported_file_type', fields: [{ field: 'body.files.0.fileType', message: 'x' }] },
      ),
    );
    expect(v.title).toBe('This kind of file cannot be uploaded.');
    expect(v.hint).toMatch(/^Upload JPEG, PNG, GIF or TIFF images/);
    expect(v.title + v.hint).not.toMatch(/INVALID_REQUEST|body\.files/);
    expect(v.technical?.[0]).toBe('INVALID_REQUEST · HTTP 400');
    expect(v.technical).toContain('Request req-1');
    expect(v.kind).toBe('error');
  });

  it('names a missing brand, asset or version without its code', () => {
    expect(describeError(api(404, 'BRAND_NOT_FOUND', 'Brand x not found')).title).toBe(
      'This brand does not exist any more.',
    );
    expect(describeError(api(404, 'ASSET_NOT_FOUND', 'Asset x not found')).title).toBe(
      'That file is no longer available.',
    );
    expect(describeError(api(404, 'WHATEVER', 'No such thing')).title).toBe('This could not be found.');
  });

  it('reads a missing plan feature as a plan notice naming the feature', () => {
    const v = describeError(
      api(403, 'FORBIDDEN', 'Your plan (free) does not include brand_dna', { feature: 'brand_dna', plan: 'free' }),
    );
    expect(v).toMatchObject({ kind: 'plan', title: 'Your plan does not include Brand DNA.' });
    expect(describeError(api(403, 'QUOTA_EXCEEDED', 'Quota')).kind).toBe('plan');
    expect(describeError(api(403, 'FORBIDDEN', 'role', { requiredPermission: 'generate' })).title).toBe(
      'Your role does not allow this.',
    );
  });

  it('turns field errors into labelled sentences', () => {
    const v = describeError(
      api(400, 'INVALID_REQUEST', 'body.blendingPrompt must not be blank', {
        fields: [{ field: 'body.blendingPrompt', message: 'must not be blank' }],
      }),
    );
    expect(v.title).toBe('The prompt is not right.');
    expect(v.hint).toBe('Prompt: must not be blank.');
    expect(fieldLabel('body.files.0.fileSize')).toBe('file size');
    expect(fieldLabel('query.someField')).toBe('some field');
  });

  it('covers server faults, throttling, lost connections and stale sessions', () => {
    expect(describeError(api(500, 'INTERNAL_ERROR', 'boom')).hint).toMatch(/operator/);
    expect(describeError(api(429, 'RATE_LIMITED', 'slow down')).title).toBe('Too many requests in a short time.');
    expect(describeError(api(403, 'CSRF_FAILED', 'csrf')).hint).toBe('Reload the page, then try again.');
    expect(describeError(api(412, 'PRECONDITION_FAILED', 'etag')).title).toMatch(/Someone else/);
    expect(describeError(api(0, 'CONNECTION_ERROR', 'fetch failed')).title).toBe('The server could not be reached.');
  });

  it('leaves the console’s own sentences alone, without a details toggle', () => {
    expect(describeError(new Error('The two passwords differ.'))).toEqual({
      title: 'The two passwords differ.',
      kind: 'error',
    });
    expect(errorLine(api(404, 'BRAND_NOT_FOUND', 'x'))).toBe(
      'This brand does not exist any more. It may have been deleted. Go back to your brands.',
    );
  });
});

describe('upload filter', () => {
  it('offers only the formats the API takes', () => {
    expect(ACCEPT.split(',')).toEqual(expect.arrayContaining(['.png', '.jpg', '.mp4', '.pdf', '.docx', '.woff2']));
    expect(ACCEPT).not.toMatch(/svg|exe/);
  });

  it('refuses other files with a sentence, and takes known ones whatever the browser says', () => {
    expect(uploadProblem({ name: 'setup.exe', type: 'application/x-ms-dos-executable' })).toMatch(
      /^This kind of file cannot be uploaded: use JPEG/,
    );
    expect(uploadProblem({ name: 'logo.svg', type: 'image/svg+xml' })).toMatch(/^SVG files/);
    expect(uploadProblem({ name: 'notes', type: '' })).toBeDefined();
    expect(uploadProblem({ name: 'cap.png', type: 'image/png' })).toBeUndefined();
    expect(uploadProblem({ name: 'cap.PNG', type: '' })).toBeUndefined();
    expect(uploadProblem({ name: 'font.woff2', type: 'application/octet-stream' })).toBeUndefined();
    expect(uploadProblem({ name: 'brief.docx', type: '' })).toBeUndefined();
  });
});
