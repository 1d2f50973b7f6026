/**
 * Screenshots of the web app's screens at desktop and phone width, for looking at them and for the docs (docs/screenshots):
 *   node --import tsx scripts/screenshots.ts BASE_URL API_KEY OUT_DIR path [path...]
 * Signs in with the key, then saves OUT_DIR/<name>-1366.png and -375.png per path (full page; SHOTS_FULL_PAGE=0 keeps
 * to the first screenful, as the docs' pictures do).
 */
import puppeteer from 'puppeteer-core';

const [base, key, out, ...paths] = process.argv.slice(2);
if (!base || !key || !out || paths.length === 0) {
  process.stderr.write('usage: screenshots.ts BASE_URL API_KEY OUT_DIR path [path...]\n');
  process.exit(2);
}
const browser = await puppeteer.launch({ executablePath: process.env.WEBGAUGE_CHROME_PATH ?? '/usr/bin/chromium', headless: true,
  args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
try {
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  await page.type('#api_key', key);
  await Promise.all([page.waitForNavigation(), page.click('form[aria-labelledby=with-key] button')]);
  for (const path of paths) {
    const name = path.replace(/^\//, '').replace(/[^a-z0-9]+/gi, '-') || 'analyze';
    for (const width of [1366, 375]) {
      await page.setViewport({ width, height: width > 500 ? 900 : 800 });
      await page.goto(`${base}${path}`, { waitUntil: 'networkidle0' });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      await page.screenshot({ path: `${out}/${name}-${width}.png`, fullPage: process.env.SHOTS_FULL_PAGE !== '0' });
      process.stdout.write(`${out}/${name}-${width}.png${overflow > 0 ? `  (scrolls sideways by ${overflow} px)` : ''}\n`);
    }
  }
} finally {
  await browser.close();
}
