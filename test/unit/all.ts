/**
 * Every unit test file in one process (scripts/run-tests.sh): they load no page and share no state, and one
 * process compiles the sources once instead of once a file (about 20 s of the suite). A single file still runs
 * on its own: node --import tsx --test test/unit/<name>.test.ts
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = new URL('.', import.meta.url).pathname;
const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts')).sort();
for (const f of files) await import(join(dir, f));
