/** Tags (spec 2.7, 4.4): create or update, partial update, delete, and the tag-side attach/detach of pages. */
import { ID_LIST_MAX, TAG_DESCRIPTION_MAX, TAG_NAME_MAX } from '../../core/pages/tags.js';
import { document, errors, idParams, link, obj, ok, ref, resource, str } from './common.js';
import { idList } from './pages.js';
import type { JsonSchema, RouteSchema } from './types.js';

const HINT = 'send {"data":{"type":"tag","attributes":{"name":"...","description":"...","color":"FFFFFF"}}}';

const tagAttributes = (required: string[]) =>
  obj(
    {
      name: str(`unique in the account, 1 to ${TAG_NAME_MAX} characters (surrounding spaces are trimmed)`, { example: 'Checkout' }),
      description: str(`tooltip text, at most ${TAG_DESCRIPTION_MAX} characters; null or "" removes it`, { nullable: true }),
      color: str('6 hex digits without "#" (a "#" and lower case are accepted); null or "" means FFFFFF', {
        nullable: true,
        pattern: '^\\s*#?(?:[0-9a-fA-F]{6})?\\s*$',
        example: 'FF8800',
      }),
    },
    required,
  );

const tagType = str('tag (may be omitted)', { enum: ['tag'] });

export const TAG_SCHEMAS: Record<string, JsonSchema> = {
  Tag: resource(
    'tag',
    obj(
      {
        name: str(`at most ${TAG_NAME_MAX} characters`),
        description: str(`at most ${TAG_DESCRIPTION_MAX} characters; present only when set`),
        color: str('6 hex digits, upper case', { pattern: '^[0-9A-F]{6}$' }),
      },
      ['name', 'color'],
    ),
    obj({ self: link() }, ['self']),
  ),
  TagDocument: document(ref('Tag')),
  TagList: obj({ data: { type: 'array', items: ref('Tag') }, links: ref('SelfLinks') }, ['data']),
  TagSaveRequest: obj(
    {
      data: obj(
        {
          type: tagType,
          id: str('an existing tag to update (then 200); omit to create', { nullable: true, pattern: '\\S' }),
          attributes: tagAttributes(['name']),
        },
        ['attributes'],
      ),
    },
    ['data'],
  ),
  TagUpdateRequest: obj(
    {
      data: obj(
        { type: tagType, attributes: tagAttributes([]) },
        [],
        { description: 'Only the attributes to change; data.id is not accepted (the tag is the one in the path).' },
      ),
    },
    ['data'],
  ),
  PageIdsRequest: idList('page_ids', 'page IDs'),
};

const tagParams = idParams('tag ID');
const tagOk = ok('The tag.', ref('TagDocument'));

const linkPages = (op: 'attach' | 'detach'): RouteSchema => ({
  operationId: `${op}TagPages`,
  summary: `${op === 'attach' ? 'Attach the tag to' : 'Detach the tag from'} pages`,
  description: op === 'attach' ? 'Pages that already have the tag are unaffected.' : 'Pages without the tag are unaffected.',
  tags: ['Tags'],
  params: tagParams,
  validationErrorCode: 'E40000',
  paramsErrorCode: 'E40417',
  body: { schema: ref('PageIdsRequest'), errorCode: 'E4001', hint: `send {"page_ids":["ID", ...]} with 1 to ${ID_LIST_MAX} page IDs` },
  responses: { '200': tagOk, ...errors('E4001', 'E40301', 'E40402', 'E40417', 'E41500') },
});

export const TAG_ROUTES: Record<string, RouteSchema> = {
  'GET /page_tags': {
    operationId: 'listTags',
    summary: 'List tags',
    description: 'All tags of the account (not paginated).',
    tags: ['Tags'],
    validationErrorCode: 'E40000',
    responses: { '200': ok('The tags.', ref('TagList')), ...errors() },
  },
  'POST /page_tags': {
    operationId: 'saveTag',
    summary: 'Create a tag, or update one named by data.id',
    description: 'Creates a tag (201 with Location), or updates the tag named by data.id (200; omitted description and color keep their values).',
    tags: ['Tags'],
    validationErrorCode: 'E40000',
    body: { schema: ref('TagSaveRequest'), errorCode: 'E4001', hint: HINT },
    responses: {
      '200': tagOk,
      '201': ok('Created.', ref('TagDocument'), { location: true }),
      ...errors('E4001', 'E40009', 'E40301', 'E40303', 'E40417', 'E41500'),
    },
  },
  'GET /page_tags/:id': {
    operationId: 'getTag',
    summary: 'Get a tag',
    description: 'The tag.',
    tags: ['Tags'],
    params: tagParams,
    validationErrorCode: 'E40000',
    paramsErrorCode: 'E40417',
    responses: { '200': tagOk, ...errors('E40417') },
  },
  'POST /page_tags/:id': {
    operationId: 'updateTag',
    summary: 'Update a tag',
    description: 'Partial update: omitted attributes keep their values.',
    tags: ['Tags'],
    params: tagParams,
    validationErrorCode: 'E40000',
    paramsErrorCode: 'E40417',
    body: { schema: ref('TagUpdateRequest'), errorCode: 'E4001', hint: HINT },
    responses: { '200': tagOk, ...errors('E4001', 'E40009', 'E40301', 'E40417', 'E41500') },
  },
  'DELETE /page_tags/:id': {
    operationId: 'deleteTag',
    summary: 'Delete a tag',
    description: 'Irreversible; removes the tag from every page.',
    tags: ['Tags'],
    params: tagParams,
    validationErrorCode: 'E40000',
    paramsErrorCode: 'E40417',
    responses: { '200': ok('Deleted.', ref('Deleted')), ...errors('E40301', 'E40417') },
  },
  'POST /page_tags/:id/attach': linkPages('attach'),
  'POST /page_tags/:id/detach': linkPages('detach'),
};
