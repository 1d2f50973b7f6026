/**
 * A minimal POSIX ustar writer: regular files only, names up to 100 bytes (the callers make their own short
 * names), everything in memory. Enough for pagespeed-files.tar; any tar reads it.
 */
const BLOCK = 512;

export interface TarFile {
  name: string;
  data: Buffer;
}

function writeString(header: Buffer, value: string, offset: number, length: number): void {
  header.write(value.slice(0, length), offset, length, 'utf8');
}

/** Octal number, zero padded, NUL terminated, filling `length` bytes. */
function writeOctal(header: Buffer, value: number, offset: number, length: number): void {
  writeString(header, `${Math.floor(value).toString(8).padStart(length - 1, '0')}\0`, offset, length);
}

function fileHeader(name: string, size: number, mtime: number): Buffer {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name longer than 100 bytes: ${name}`);
  const h = Buffer.alloc(BLOCK);
  writeString(h, name, 0, 100);
  writeOctal(h, 0o644, 100, 8); // mode
  writeOctal(h, 0, 108, 8); // uid
  writeOctal(h, 0, 116, 8); // gid
  writeOctal(h, size, 124, 12);
  writeOctal(h, mtime, 136, 12);
  h.fill(0x20, 148, 156); // checksum counts as spaces while it is computed
  h.write('0', 156); // regular file
  writeString(h, 'ustar\0', 257, 6);
  writeString(h, '00', 263, 2);
  writeString(h, 'webgauge', 265, 32); // uname
  writeString(h, 'webgauge', 297, 32); // gname
  let sum = 0;
  for (const byte of h) sum += byte;
  writeString(h, `${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return h;
}

export function tar(files: readonly TarFile[], mtime = Math.floor(Date.now() / 1000)): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    parts.push(fileHeader(f.name, f.data.length, mtime), f.data);
    const pad = (BLOCK - (f.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * BLOCK)); // end of archive
  return Buffer.concat(parts);
}
