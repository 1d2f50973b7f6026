/**
 * @puppeteer/replay types its runner with the `puppeteer` package, which brings a browser download of its own; we
 * install puppeteer-core (the same API, browsers from Debian) and name it here for those types.
 */
declare module 'puppeteer' {
  export * from 'puppeteer-core';
}
