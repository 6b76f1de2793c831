import { render } from 'preact';
import browser from 'webextension-polyfill';
import '../theme.css';

/** Options page placeholder: settings per site and per kind come in a later issue. */
function Options() {
  const { version } = browser.runtime.getManifest();
  return (
    <main id="csg-options" style={{ maxWidth: '640px', margin: '32px auto', padding: '0 16px' }}>
      <h1 class="csg-brand">
        <img src="/assets/icon-32.png" alt="" />
        Chat Stream Guard
      </h1>
      <p>
        Version <span data-testid="version">{version}</span>
      </p>
      <p class="csg-muted">
        Settings are not editable yet. The guard runs with its built-in rule pack on the supported
        chat sites.
      </p>
    </main>
  );
}

const root = document.getElementById('app');
if (root) render(<Options />, root);
