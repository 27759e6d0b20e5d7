import { describe, expect, it } from 'vitest';
import { textProblem } from '../../http/schemas.ts';
import { foldKey } from './brands.schemas.ts';

describe('textProblem', () => {
  it('accepts ordinary and astral text', () => {
    expect(textProblem('Acme 😀 Café', true)).toBeUndefined();
    expect(textProblem('', false)).toBeUndefined();
  });
  it('refuses NUL, unpaired surrogates, and blank text where it must not be blank', () => {
    expect(textProblem('a\u0000b')).toBe('must not contain NUL characters');
    expect(textProblem('a\uD800b')).toBe('must not contain unpaired surrogates');
    expect(textProblem('\uDE00')).toBe('must not contain unpaired surrogates');
    expect(textProblem(' \t\n\u00a0\u3000', true)).toBe('must not be blank');
    expect(textProblem(' \t', false)).toBeUndefined();
    expect(textProblem('', true)).toBe('must not be blank');
  });
});

describe('foldKey', () => {
  it('folds case and Unicode normalization form', () => {
    expect(foldKey('CAFÉ')).toBe(foldKey('café'));
    expect(foldKey('Cafe\u0301')).toBe(foldKey('Café'));
    expect(foldKey('Cafe')).not.toBe(foldKey('Café'));
  });
});
