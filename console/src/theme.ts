/**
 * Light or dark: the system's choice (prefers-color-scheme, followed by the CSS itself) unless the
 * person picks one; the pick is kept in localStorage and set as html[data-theme].
 */
export type ThemePref = 'system' | 'light' | 'dark';
export const THEME_PREFS: readonly ThemePref[] = ['system', 'light', 'dark'];
const KEY = 'atelier.theme';

/** A stored value as a preference (anything unknown is `system`). */
export function parsePref(v: string | null | undefined): ThemePref {
  return v === 'light' || v === 'dark' ? v : 'system';
}

/** The theme in effect. */
export function resolveTheme(pref: ThemePref, systemDark: boolean): 'light' | 'dark' {
  return pref === 'system' ? (systemDark ? 'dark' : 'light') : pref;
}

export function loadThemePref(): ThemePref {
  try {
    return parsePref(localStorage.getItem(KEY));
  } catch {
    return 'system';
  }
}

/** Applies and stores a preference: `system` removes the attribute, so the media query decides. */
export function applyThemePref(pref: ThemePref, store = true) {
  const root = document.documentElement;
  if (pref === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', pref);
  if (!store) return;
  try {
    if (pref === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, pref);
  } catch {
    // private mode: the choice lasts for this page only
  }
}
