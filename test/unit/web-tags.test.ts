import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { colorInputValue, tagBodyFromForm } from '../../src/web/screens/tags.js';
import { FormFields } from '../../src/web/session.js';
import { parseTagBody } from '../../src/core/pages/tags.js';

describe('tags form', () => {
  it('becomes the API body the API parser accepts', () => {
    const form = new FormFields('name=+Blog+&color=%232456d6&description=');
    assert.deepEqual(tagBodyFromForm(form), { data: { type: 'tag', attributes: { name: ' Blog ', color: '2456D6', description: '' } } });
    assert.deepEqual(parseTagBody(tagBodyFromForm(form), 'create'), { name: 'Blog', color: '2456D6', description: null });
  });

  it('gives the colour input a valid value', () => {
    assert.equal(colorInputValue('FFAA00'), '#ffaa00');
    assert.equal(colorInputValue('#ABCDEF'), '#abcdef');
    assert.equal(colorInputValue('nope'), '#2456d6');
  });
});
