import { render } from 'preact';
import { t, uiLanguage } from '../i18n.ts';
import '../theme.css';
import './popup.css';
import { Popup } from './popup.tsx';

document.documentElement.lang = uiLanguage();
document.title = t('extension_name');
const root = document.getElementById('app');
if (root) render(<Popup />, root);
