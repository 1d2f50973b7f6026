/** The report's text formatting (report/format.ts): Lighthouse's markdown and units in the report's own print. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inlineMarkdown, inOurUnits } from '../../../src/report/format.js';

describe("Lighthouse's short texts as the report prints them", () => {
  it('turns `code` into <code> and https links into links, escaping everything else', () => {
    assert.equal(inlineMarkdown('Avoid `document.write()`'), 'Avoid <code>document.write()</code>');
    assert.equal(inlineMarkdown('Has a `<meta name="viewport">` tag'), 'Has a <code>&lt;meta name=&quot;viewport&quot;&gt;</code> tag');
    assert.equal(inlineMarkdown('[Learn more](https://developer.chrome.com/docs/x).'),
      '<a href="https://developer.chrome.com/docs/x" rel="noreferrer nofollow">Learn more</a>.');
    // Only https links: a javascript: or relative target stays text.
    assert.equal(inlineMarkdown('[x](javascript:alert(1))'), '[x](javascript:alert(1))');
    assert.equal(inlineMarkdown('<img src=x onerror=alert(1)>'), '&lt;img src=x onerror=alert(1)&gt;');
    assert.equal(inlineMarkdown('a lone ` backtick'), 'a lone ` backtick');
  });

  it("prints Lighthouse's KiB, MiB and ms as the report's sizes and times", () => {
    assert.equal(inOurUnits('Est savings of 750 KiB'), 'Est savings of 750.0 KB');
    assert.equal(inOurUnits('Est savings of 1,200 KiB'), 'Est savings of 1.17 MB');
    assert.equal(inOurUnits('Total size was 2.5 MiB'), 'Total size was 2.50 MB');
    assert.equal(inOurUnits('Root document took 2,884 ms'), 'Root document took 2.88 s');
    assert.equal(inOurUnits('Root document took 120 ms'), 'Root document took 120 ms');
    assert.equal(inOurUnits('3 long tasks found'), '3 long tasks found');
  });
});
