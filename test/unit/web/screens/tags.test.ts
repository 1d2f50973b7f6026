/**
 * The tags form (web/screens/tags.ts): the API body it makes, which the API's parser accepts, and its colour input.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { colorInputValue, tagAttributesFromForm } from '../../../../src/web/screens/tags.js';
import { FormFields } from '../../../../src/web/session.js';
import { parseTagInput } from '../../../../src/core/pages/tags.js';

describe('tags form', () => {
  it('becomes the API body the API parser accepts', () => {
    const form = new FormFields('name=+Blog+&color=%232456d6&description=');
    assert.deepEqual(tagAttributesFromForm(form), { name: ' Blog ', color: '2456D6', description: '' });
    assert.deepEqual(parseTagInput(tagAttributesFromForm(form), 'create'), { name: 'Blog', color: '2456D6', description: null });
  });

  it('gives the colour input a valid value', () => {
    assert.equal(colorInputValue('FFAA00'), '#ffaa00');
    assert.equal(colorInputValue('#ABCDEF'), '#abcdef');
    assert.equal(colorInputValue('nope'), '#2456d6');
  });
});
