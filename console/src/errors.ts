/**
 * Errors as people read them (pure, unit-tested): a sentence on what happened, one on what to do,
 * and the API's own code, status, request id and message kept for a "Details" toggle.
 */

export interface ErrorView {
  /** What happened, in a sentence. */
  title: string;
  /** What to do about it, when there is something to say. */
  hint?: string;
  /** `BRAND_NOT_FOUND`, `HTTP 404`, request id, the raw message: for the details toggle. */
  technical?: string[];
  /** A plan limit rather than a fault: shown as a notice, not an alarm. */
  kind: 'error' | 'plan';
}

interface ApiErrorLike {
  message?: unknown;
  code?: unknown;
  status?: unknown;
  requestId?: unknown;
  details?: unknown;
  name?: unknown;
}

/** Feature names of the plan catalog as people say them. */
export const FEATURE_LABELS: Record<string, string> = {
  brand_dna: 'Brand DNA',
  critique: 'Critique',
  video_generation: 'Video generation',
  reference_to_video: 'Reference-to-video',
  reference_videos: 'Reference videos',
  url_extraction: 'Import from URL',
};

export const featureLabel = (f: string) => FEATURE_LABELS[f] ?? f.replace(/_/g, ' ');

/** The formats uploads accept, as one phrase (kept in step with src/adapters/media/sniff.ts). */
export const ACCEPTED_PHRASE =
  'JPEG, PNG, GIF or TIFF images, MP4 or MOV videos, PDF or Word documents, and TTF, OTF or WOFF fonts';

/** `body.files.0.fileType` → `file type`, `body.blendingPrompt` → `prompt`. */
export function fieldLabel(field: string): string {
  const last = field
    .split('.')
    .filter((p) => !/^\d+$/.test(p) && p !== 'body' && p !== 'query' && p !== 'params')
    .pop();
  if (!last) return field;
  const named: Record<string, string> = {
    blendingPrompt: 'prompt',
    originalPrompt: 'prompt',
    userPrompts: 'prompt',
    fileType: 'file type',
    fileName: 'file name',
    fileSize: 'file size',
    startImageAssetId: 'start frame',
    productAssetIds: 'products',
    environmentAssetId: 'environment',
    assetIds: 'assets',
    urls: 'web pages',
    url: 'page URL',
    expiresAt: 'expiry date',
  };
  return named[last] ?? last.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

const NOT_FOUND: Record<string, [string, string]> = {
  BRAND_NOT_FOUND: ['This brand does not exist any more.', 'It may have been deleted. Go back to your brands.'],
  ASSET_NOT_FOUND: ['That file is no longer available.', 'It may have been deleted: reload the page and pick another.'],
  VERSION_NOT_FOUND: ['That Brand DNA version no longer exists.', 'Reload the page to see the current versions.'],
  EXTRACTION_NOT_FOUND: ['That import no longer exists.', 'Start a new one from the page URL.'],
  KEY_NOT_FOUND: ['That API key no longer exists.', 'Reload the page to see the current keys.'],
  MEMBER_NOT_FOUND: ['That person is no longer a member.', 'Reload the page to see the current members.'],
  UPLOAD_NOT_FOUND: ['That upload is no longer pending.', 'Upload the file again.'],
};

const UPLOAD_REASONS: Record<string, [string, string]> = {
  unsupported_file_type: ['This kind of file cannot be uploaded.', `Upload ${ACCEPTED_PHRASE}.`],
  svg_not_supported: ['SVG files cannot be uploaded.', 'Export the picture as a PNG and upload that.'],
  file_type_extension_mismatch: [
    'The file’s name and its type do not match.',
    'Rename the file with the right extension, or export it again.',
  ],
};

function fieldsOf(details: unknown): { field: string; message: string }[] {
  const fields = (details as { fields?: unknown } | undefined)?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((f) =>
    f && typeof f.field === 'string' && typeof f.message === 'string' ? [{ field: f.field, message: f.message }] : [],
  );
}

function technicalOf(e: ApiErrorLike, message: string): string[] {
  const out: string[] = [];
  const head = [
    typeof e.code === 'string' ? e.code : '',
    typeof e.status === 'number' && e.status ? `HTTP ${e.status}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  if (head) out.push(head);
  if (message) out.push(message);
  if (typeof e.requestId === 'string' && e.requestId) out.push(`Request ${e.requestId}`);
  return out;
}

/** The person-facing view of any thrown value (an SDK AtelierError, an UploadError, an Error). */
export function describeError(err: unknown): ErrorView {
  const e = (err ?? {}) as ApiErrorLike;
  const message = typeof e.message === 'string' ? e.message : String(err);
  const code = typeof e.code === 'string' ? e.code : '';
  const status = typeof e.status === 'number' ? e.status : undefined;
  const details = (e.details ?? {}) as Record<string, unknown>;
  const technical = technicalOf(e, message);
  const view = (title: string, hint?: string, kind: ErrorView['kind'] = 'error'): ErrorView => ({
    title,
    ...(hint ? { hint } : {}),
    ...(code || status ? { technical } : {}),
    kind,
  });

  // Not an API answer: the console's own sentence (already written for people).
  if (!code && status === undefined) return { title: message || 'Something went wrong.', kind: 'error' };

  const reason = typeof details.reason === 'string' ? details.reason : '';
  const upload = UPLOAD_REASONS[reason];
  if (upload) return view(upload[0], upload[1]);
  const nf = NOT_FOUND[code];
  if (nf) return view(nf[0], nf[1]);

  if (typeof details.feature === 'string') {
    return view(
      `Your plan does not include ${featureLabel(details.feature)}.`,
      'An admin of your organization can move it to a plan that does.',
      'plan',
    );
  }
  if (typeof details.requiredPermission === 'string') {
    return view(
      'Your role does not allow this.',
      'Ask an admin of your organization to do it, or to change your role.',
    );
  }
  switch (code) {
    case 'QUOTA_EXCEEDED':
      return view(
        'You have used this month’s allowance for this.',
        'It starts again on the first of next month; an admin can move the organization to a larger plan.',
        'plan',
      );
    case 'RATE_LIMITED':
    case 'TOO_MANY_ATTEMPTS':
      return view('Too many requests in a short time.', 'Wait a few seconds, then try again.');
    case 'UNAUTHORIZED':
      return view('Your session has ended.', 'Sign in again to go on.');
    case 'CSRF_FAILED':
      return view('This page’s session is out of date.', 'Reload the page, then try again.');
    case 'PRECONDITION_FAILED':
    case 'STALE_UPDATE':
      return view('Someone else changed this meanwhile.', 'Reload to see their changes, then make yours again.');
    case 'ASSET_NOT_READY':
      return view('That file is still being processed.', 'Wait until it shows “complete”, then try again.');
    case 'ASSET_NOT_IMAGE':
      return view('That file is not a picture.', 'Pick a JPEG, PNG, GIF or TIFF image.');
    case 'KEY_REVOKED':
      return view('That key is revoked.', 'Create a new key instead.');
    case 'SERVICE_UNAVAILABLE':
      return view('The server is busy or restarting.', 'Try again in a moment.');
  }
  if (status === 0 || e.name === 'ConnectionError') {
    return view('The server could not be reached.', 'Check your connection, then try again.');
  }
  if (status === 404) return view('This could not be found.', 'It may have been deleted. Reload the page.');
  if (status === 409) return view('That clashes with the current state.', 'Reload the page and try again.');
  if (status !== undefined && status >= 500) {
    return view(
      'Something went wrong on the server.',
      'Try again in a moment. If it keeps happening, send the details below to your operator.',
    );
  }
  const fields = fieldsOf(details);
  if (fields.length > 0) {
    const f = fields[0]!;
    return view(
      fields.length === 1 ? `The ${fieldLabel(f.field)} is not right.` : 'Some fields are not right.',
      fields
        .slice(0, 3)
        .map((x) => `${capitalize(fieldLabel(x.field))}: ${x.message.replace(/\.$/, '')}.`)
        .join(' '),
    );
  }
  if (status === 400 || status === 422) return view('That request was not accepted.', 'Check the form and try again.');
  return view('Something went wrong.', 'Try again; if it keeps happening, send the details below to your operator.');
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** One line for small places (an upload row): the title and hint together. */
export function errorLine(err: unknown): string {
  const v = describeError(err);
  return v.hint ? `${v.title} ${v.hint}` : v.title;
}
