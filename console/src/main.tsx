import { render } from 'preact';
import { App } from './app.tsx';
import { applyThemePref, loadThemePref } from './theme.ts';
import './styles.css';

applyThemePref(loadThemePref(), false);
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
