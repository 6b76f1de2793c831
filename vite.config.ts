import { crx, type ManifestV3Export } from '@crxjs/vite-plugin';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';
import manifest from './manifest.json' with { type: 'json' };

/**
 * One source manifest, two builds: `vite build --mode chrome` → dist/chrome,
 * `vite build --mode firefox` → dist/firefox. crxjs keeps the background key each
 * browser wants (service_worker for Chrome, scripts for Firefox).
 *
 * The MAIN-world hook and the ISOLATED bridge are built as standalone IIFE files:
 * crxjs's default async loader runs too late for a MAIN-world document_start script
 * in Chromium and 404s in Firefox (see ../shared/TOOLCHAIN.md).
 */
export const STANDALONE_CONTENT_SCRIPTS = ['src/page/main-world.ts', 'src/content/bridge.ts'];

/** The source manifest as one browser sees it: Chrome does not know the gecko key. */
function manifestFor(browser: 'chrome' | 'firefox'): ManifestV3Export {
  // JSON imports widen literal unions (e.g. gecko's ["none"]) to string[]: hence the cast.
  const { browser_specific_settings, ...common } = manifest;
  return (
    browser === 'firefox' ? { ...common, browser_specific_settings } : common
  ) as ManifestV3Export;
}

export default defineConfig(({ mode }) => {
  const browser = mode === 'firefox' ? 'firefox' : 'chrome';
  if (mode !== 'chrome' && mode !== 'firefox' && mode !== 'production') {
    throw new Error(`unknown build mode "${mode}": use --mode chrome or --mode firefox`);
  }
  return {
    plugins: [
      preact(),
      crx({
        manifest: manifestFor(browser),
        browser,
        contentScripts: { standaloneFiles: STANDALONE_CONTENT_SCRIPTS },
      }),
    ],
    build: {
      outDir: `dist/${browser}`,
      emptyOutDir: true,
      target: 'es2022',
      sourcemap: false,
      minify: false,
      reportCompressedSize: false,
    },
    // The extension makes no network request of its own; no dev-server HMR in release builds.
    server: { host: '127.0.0.1', strictPort: true, port: 5173 },
  };
});
