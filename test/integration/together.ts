/**
 * Integration files that load no page and hold nothing against the clock of the machine, in one process
 * (scripts/run-tests.sh names them in WEBGAUGE_TOGETHER): each starts its own servers and cleans up after itself, and
 * one process spares each file its own start and module loading (~4.5 s a file). One still runs alone:
 * node --import tsx --test test/integration/<name>.test.ts
 */
import { resolve } from 'node:path';

const files = (process.env.WEBGAUGE_TOGETHER ?? '').split(/\s+/).filter(Boolean);
if (files.length === 0) throw new Error('WEBGAUGE_TOGETHER names no file: run this through scripts/run-tests.sh');
for (const f of files) await import(resolve(f));
