import { render } from 'preact';
import '../theme.css';
import './popup.css';
import { Popup } from './popup.tsx';

const root = document.getElementById('app');
if (root) render(<Popup />, root);
