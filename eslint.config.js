// ESLint flat config: @eslint/js and typescript-eslint recommended (syntax-only, fast;
// the type checker runs separately in `npm run typecheck`).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const browserGlobals = {
  window: 'readonly',
  document: 'readonly',
  location: 'readonly',
  fetch: 'readonly',
  chrome: 'readonly',
};

const nodeGlobals = {
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
  URL: 'readonly',
  URLSearchParams: 'readonly',
  TextEncoder: 'readonly',
  TextDecoder: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
  structuredClone: 'readonly',
  AbortController: 'readonly',
  performance: 'readonly',
};

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'artifacts/**',
      'demo-output/**',
      'coverage/**',
      'test/fixtures/**',
      'package-lock.json',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...nodeGlobals },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  {
    // The engine inspects text for control and invisible characters on purpose.
    files: ['src/core/**'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Code that runs in pages (puppeteer page functions in the e2e tests, the mock chat).
    files: ['test/e2e/**', 'test/mock-chat/**'],
    languageOptions: { globals: { ...browserGlobals } },
  },
);
