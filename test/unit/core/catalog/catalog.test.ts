/**
 * The reference data (core/catalog/catalog.ts): the location and its browsers with their capabilities, and the
 * simulated devices.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KnownDevices } from 'puppeteer-core';
import { agentBrowsers, createCatalog, deviceProfile, deviceSlug, runnerBrowser } from '../../../../src/core/catalog/catalog.js';

const catalog = createCatalog({ locationName: 'Frankfurt rack 3', locationRegion: 'Europe' });

describe('locations and browsers', () => {
  test('there is one default location named by the config, running browser 3', () => {
    assert.deepEqual(catalog.locations(), [{ id: '1', name: 'Frankfurt rack 3', region: 'Europe', default: true, browsers: ['3'] }]);
    assert.equal(catalog.location('1')?.name, 'Frankfurt rack 3');
    assert.equal(catalog.location('24'), undefined);
    assert.equal(catalog.defaultLocation, '1');
  });
  test('browser 3 is desktop Chrome with every capability as a boolean', () => {
    const b = catalog.browser('3');
    assert.ok(b);
    assert.deepEqual(
      [b.name, b.browser, b.platform, b.device, b.default],
      ['Chrome (Desktop)', 'chrome', 'desktop', '', true],
    );
    for (const cap of ['adblock', 'lighthouse', 'cookies', 'filtering', 'http_auth', 'throttle', 'video', 'dns', 'user_agent', 'resolution'] as const) {
      assert.equal(b[cap], true, cap);
    }
    assert.equal(catalog.browser('2'), undefined);
    assert.equal(catalog.defaultBrowser, '3');
  });
  test('browser 1 is Firefox (Desktop): no Lighthouse, every other capability (test/integration/firefox.test.ts proves them)', () => {
    const f = catalog.browser('1');
    assert.ok(f);
    assert.deepEqual([f.name, f.browser, f.platform, f.device, f.default], ['Firefox (Desktop)', 'firefox', 'desktop', '', false]);
    assert.equal(f.lighthouse, false);
    for (const cap of ['adblock', 'cookies', 'filtering', 'http_auth', 'throttle', 'video', 'dns', 'user_agent', 'resolution'] as const) {
      assert.equal(f[cap], true, cap);
    }
    assert.deepEqual(catalog.browsers().map((x) => x.id), ['3', '1']);
    assert.deepEqual(agentBrowsers({ firefox: true }), ['3', '1']);
    assert.deepEqual(agentBrowsers({ firefox: false }), ['3']);
    assert.deepEqual([runnerBrowser(f), runnerBrowser(catalog.browser('3'))], ['firefox', 'chrome']);
  });
  test('callers cannot change the reference data', () => {
    catalog.locations()[0]!.browsers.push('9');
    catalog.browser('3')!.lighthouse = false;
    assert.deepEqual(catalog.location('1')!.browsers, ['3']);
    assert.equal(catalog.browser('3')!.lighthouse, true);
  });
});

describe('simulated devices', () => {
  const devices = catalog.devices();
  test('every portrait device of puppeteer is listed once, with no landscape twin', () => {
    const portrait = Object.entries(KnownDevices).filter(([name, d]) => !d.viewport.isLandscape && !/landscape/i.test(name));
    assert.equal(devices.length, portrait.length);
    assert.ok(devices.length > 50);
    assert.equal(new Set(devices.map((d) => d.id)).size, devices.length, 'ids are unique');
    assert.ok(devices.every((d) => !/landscape/i.test(d.name)));
  });
  test('ids are slugs of the names', () => {
    assert.equal(deviceSlug('iPhone 13 Pro'), 'iphone-13-pro');
    assert.equal(deviceSlug('Galaxy S9+'), 'galaxy-s9-plus');
    assert.equal(deviceSlug('iPad (gen 6)'), 'ipad-gen-6');
    assert.ok(devices.every((d) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(d.id) && d.id === deviceSlug(d.name)));
  });
  test('an iPhone is an Apple phone with its puppeteer viewport and user agent', () => {
    const d = catalog.device('iphone-13-pro');
    assert.deepEqual(d, {
      id: 'iphone-13-pro',
      category: 'phone',
      name: 'iPhone 13 Pro',
      manufacturer: 'Apple',
      user_agent: KnownDevices['iPhone 13 Pro'].userAgent,
      width: 390,
      height: 844,
      dppx: 3,
    });
  });
  test('tablets are recognised by name or by a short side of 600 px or more', () => {
    for (const id of ['ipad', 'ipad-pro-11', 'galaxy-tab-s4', 'nexus-7', 'nexus-10', 'kindle-fire-hdx', 'blackberry-playbook']) {
      assert.equal(catalog.device(id)?.category, 'tablet', id);
    }
    for (const id of ['pixel-5', 'galaxy-s8', 'moto-g4', 'jiophone-2', 'nexus-5x']) assert.equal(catalog.device(id)?.category, 'phone', id);
  });
  test('manufacturers come from the brand, else the first word', () => {
    const maker = (id: string) => catalog.device(id)?.manufacturer;
    assert.deepEqual(
      ['ipad-mini', 'pixel-2-xl', 'nexus-6p', 'galaxy-s5', 'kindle-fire-hdx', 'moto-g4', 'blackberry-z30', 'nokia-n9', 'lg-optimus-l70', 'microsoft-lumia-950'].map(maker),
      ['Apple', 'Google', 'Google', 'Samsung', 'Amazon', 'Motorola', 'BlackBerry', 'Nokia', 'LG', 'Microsoft'],
    );
  });
  test('viewports are portrait integers and dppx is within 1-5', () => {
    for (const d of devices) {
      assert.ok(Number.isInteger(d.width) && Number.isInteger(d.height) && d.width <= d.height, d.id);
      assert.ok(d.dppx >= 1 && d.dppx <= 5, d.id);
      assert.ok(d.user_agent.startsWith('Mozilla/5.0'), d.id);
    }
    // Puppeteer lists the Lumia 550 with a landscape viewport; the catalogue gives it upright.
    assert.deepEqual([catalog.device('microsoft-lumia-550')?.width, catalog.device('microsoft-lumia-550')?.height], [360, 640]);
  });
  test('an unknown device is undefined', () => {
    assert.equal(catalog.device('nokia-3310'), undefined);
  });
  test('deviceProfile gives the runner a mobile viewport and user agent', () => {
    const d = catalog.device('pixel-5')!;
    assert.deepEqual(deviceProfile(d), { id: 'pixel-5', width: 393, height: 851, dppx: 3, userAgent: d.user_agent, mobile: true });
  });
});
