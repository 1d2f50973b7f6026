/** What the tests read off a JPEG: its size (from its SOF marker) and how bright it is. */
import { execFile } from 'node:child_process';

export function jpegSize(jpeg: Buffer): { width: number; height: number } {
  for (let i = 2; i < jpeg.length;) {
    const marker = jpeg[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: jpeg.readUInt16BE(i + 5), width: jpeg.readUInt16BE(i + 7) };
    }
    i += 2 + jpeg.readUInt16BE(i + 2);
  }
  throw new Error('no SOF marker');
}

/** Mean luminance 0-255 of a JPEG (decoded by ffmpeg to a small grey image). */
export function luminance(jpeg: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = execFile('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-vf', 'scale=32:18,format=gray', '-f', 'rawvideo',
      'pipe:1'], { encoding: 'buffer' }, (err, stdout) => (err ? reject(err) : resolve(stdout.reduce((s, v) => s + v, 0) / stdout.length)));
    child.stdin?.end(jpeg);
  });
}

/** ffprobe's view of an mp4's video stream and container (codec, pixel format, frame rates, size, duration). */
export function probeVideo(mp4: Buffer): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const child = execFile('ffprobe', ['-v', 'error', '-select_streams', 'v:0',
      '-show_entries', 'stream=codec_name,pix_fmt,r_frame_rate,avg_frame_rate,width,height:format=duration,format_name',
      '-of', 'default=noprint_wrappers=1', '-i', 'pipe:0'], (err, stdout) => (err ? reject(err) :
      resolve(Object.fromEntries(String(stdout).trim().split('\n').map((l) => l.split('=') as [string, string])))));
    child.stdin?.on('error', () => undefined); // ffprobe may stop reading once it has what it needs
    child.stdin?.end(mp4);
  });
}

/** The mean luminance of every frame of a video (ffmpeg decodes each to a grey 32 x 18 image). */
export function videoFrameLuminance(mp4: Buffer): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = execFile('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-vf', 'scale=32:18,format=gray', '-f', 'rawvideo', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 1 << 26 }, (err, out) => {
        if (err) return reject(err);
        const frames: number[] = [];
        for (let i = 0; i + 576 <= out.length; i += 576) frames.push(out.subarray(i, i + 576).reduce((s, v) => s + v, 0) / 576);
        resolve(frames);
      });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(mp4);
  });
}
