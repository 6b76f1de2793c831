import { render } from 'preact';
import { t, uiLanguage } from '../i18n.ts';
import '../theme.css';
import './options.css';
import { Options } from './options.tsx';

document.documentElement.lang = uiLanguage();
document.title = t('options_title');
const root = document.getElementById('app');
if (root) render(<Options />, root);
