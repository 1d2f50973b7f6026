import { execFile } from 'node:child_process';

/** A PDF's text through poppler's pdftotext, or undefined where it is not installed (scripts/test.sh installs it). */
export const pdfText = (pdf: Buffer): Promise<string | undefined> => new Promise((resolve) => {
  const child = execFile('pdftotext', ['-', '-'], { encoding: 'utf8', maxBuffer: 1 << 24 },
    (err, stdout) => resolve(err ? undefined : stdout));
  child.on('error', () => resolve(undefined));
  child.stdin?.end(pdf);
});
