#!/usr/bin/env node
// The `csg` launcher: registers tsx so the TypeScript sources run as they are,
// then hands over to the CLI. All behaviour lives in src/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
