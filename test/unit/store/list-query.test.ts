/** The translation of a list query into SQL (store/list-query.ts): the LIKE pattern of a substring filter. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { substringPattern } from '../../../src/store/list-query.js';

describe('substring pattern', () => {
  it('lower-cases and escapes the LIKE wildcards and the escape character', () => {
    assert.equal(substringPattern('A_b%C!'), '%a!_b!%c!!%');
  });
});
