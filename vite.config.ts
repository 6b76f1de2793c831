import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { crx, type ManifestV3Export } from '@crxjs/vite-plugin';
import preact from '@preact/preset-vite';
import { build, defineConfig, type Plugin } from 'vite';
import manifest from './manifest.json' with { type: 'json' };

/**
 * One source manifest, two builds: `vite build --mode chrome` → dist/chrome,
 * `vite build --mode firefox` → dist/firefox. crxjs keeps the background key each
 * browser wants (service_worker for Chrome, scripts for Firefox).
 *
 * The MAIN-world hook and the ISOLATED bridge are built as standalone IIFE files:
 * crxjs's default async loader runs too late for a MAIN-world document_start script
 * in Chromium and 404s in Firefox (see ../shared/TOOLCHAIN.md). They are not in the
 * manifest (the background registers them per site, src/background/script-registration.ts),
 * and crxjs only builds standalone files it finds in the manifest's content_scripts or
 * behind a `?script` import, which would list them in web_accessible_resources for every
 * page. So `standaloneContentScripts` below builds them itself, at the same paths.
 */
export const STANDALONE_CONTENT_SCRIPTS = [
  'src/page/main-world.ts',
  'src/content/bridge.ts',
  'src/content/guard-engine.ts',
];

const MAIN_WORLD_ENTRY = 'src/page/main-world.ts';

/**
 * The MAIN-world script links its site-route table (routes handed over by the bridge as
 * data) in place of the one compiled from src/core/wire/site-routes.ts.
 */
export const PAGE_SITE_ROUTES_ALIAS = [
  {
    find: /^(?:\.\.?\/)+site-route-table\.ts$/,
    replacement: fileURLToPath(new URL('./src/page/page-site-routes.ts', import.meta.url)),
  },
];

/**
 * Builds each of STANDALONE_CONTENT_SCRIPTS as one self-contained IIFE (Vite library
 * mode, every import inlined) and emits it as `<dir>/<name>.js` next to the rest of
 * the build, e.g. `src/page/main-world.js`. Not web-accessible: only
 * `scripting.registerContentScripts` loads them.
 */
function standaloneContentScripts(): Plugin {
  return {
    name: 'csg:standalone-content-scripts',
    apply: 'build',
    async generateBundle() {
      for (const entry of STANDALONE_CONTENT_SCRIPTS) {
        const fileName = entry.replace(/\.ts$/, '.js');
        const result = await build({
          configFile: false,
          logLevel: 'warn',
          // The page holds no per-site URL: its site routes come from the bridge as data
          // (src/core/wire/site-routes.ts, src/page/page-site-routes.ts).
          ...(entry === MAIN_WORLD_ENTRY ? { resolve: { alias: PAGE_SITE_ROUTES_ALIAS } } : {}),
          build: {
            write: false,
            emptyOutDir: false,
            target: 'es2022',
            // Minified, unlike the extension pages: the browser parses these in every
            // frame of every guarded page, in the page's main thread, and parse time
            // grows with the source's length (bench/long-task-attribution.ts).
            minify: true,
            sourcemap: false,
            lib: { entry, formats: ['iife'], name: 'csg', fileName: () => fileName },
            rollupOptions: { output: { inlineDynamicImports: true } },
          },
        });
        const outputs = (Array.isArray(result) ? result : [result]).flatMap((r) =>
          'output' in r ? r.output : [],
        );
        const chunk = outputs.find((output) => output.type === 'chunk' && output.isEntry);
        if (chunk?.type !== 'chunk') throw new Error(`no IIFE output for ${entry}`);
        this.emitFile({ type: 'asset', fileName, source: chunk.code });
      }
    },
  };
}

/**
 * Issue 21 §1: the managed-storage schema the manifest names (`storage.managed_schema`).
 * crxjs copies only the files it knows the manifest keys of, so it is emitted here.
 */
function managedSchema(): Plugin {
  const fileName = manifest.storage.managed_schema;
  return {
    name: 'csg:managed-schema',
    apply: 'build',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName, source: readFileSync(fileName, 'utf8') });
    },
  };
}

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
      }),
      standaloneContentScripts(),
      managedSchema(),
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
