/**
 * JSON:API request bodies unwrapped: `{data:{type, id?, attributes}}` in, the attributes core's parsers take out,
 * with the spec's error (E4001, or E40002 for POST /tests) naming what is wrong and the shape expected.
 */
import { ApiError, isObject, show } from '../core/errors.js';

/**
 * The attributes of a JSON:API body of `type` (data.type may be omitted); E4001 naming what is wrong and the
 * expected `shape` otherwise. A partial update may leave attributes out.
 */
export function resourceAttributes(body: unknown, type: string, shape: string, partial = false): Record<string, unknown> {
  return resourceOf(body, type, shape, partial).attributes;
}

/** The resource of a JSON:API body: its attributes and the `data.id` a client gave (undefined when none). */
export function resourceOf(body: unknown, type: string, shape: string, partial = false): { id: unknown; attributes: Record<string, unknown> } {
  if (!isObject(body) || !isObject(body.data)) throw new ApiError('E4001', `data is missing or not an object; ${shape}`);
  const data = body.data;
  if (data.type !== undefined && data.type !== type) throw new ApiError('E4001', `data.type must be "${type}", got ${show(data.type)}; ${shape}`);
  const a = data.attributes === undefined && partial ? {} : data.attributes;
  if (!isObject(a)) throw new ApiError('E4001', `data.attributes is missing or not an object; ${shape}`);
  return { id: data.id, attributes: a };
}

/** POST /tests: the test's attributes (E40002 when the document is not a test resource). */
export function testAttributes(body: unknown): Record<string, unknown> {
  const shape = 'the body must be {"data":{"type":"test","attributes":{"url":"https://example.com/", ...}}}';
  if (!isObject(body)) throw new ApiError('E40002', `Request body is not a JSON object; ${shape}`);
  const data = body.data;
  if (!isObject(data)) throw new ApiError('E40002', `data is missing or not an object; ${shape}`);
  if (data.type !== 'test') throw new ApiError('E40002', `data.type must be "test", got ${show(data.type)}; ${shape}`);
  if (!isObject(data.attributes)) {
    throw new ApiError('E40002', `data.attributes is missing or not an object; ${shape}`);
  }
  return data.attributes;
}

/** POST /pages/{id}/monitoring: the frequency the body asks for, as given (core parses it). */
export function monitorFrequency(body: unknown): unknown {
  const shape = 'send {"data":{"type":"performance_monitor","attributes":{"frequency":"daily"}}}';
  const data = isObject(body) ? body.data : undefined;
  if (!isObject(data)) throw new ApiError('E4001', `data is missing or not an object; ${shape}.`);
  if (data.type !== undefined && data.type !== 'performance_monitor') {
    throw new ApiError('E4001', `data.type must be "performance_monitor", got ${JSON.stringify(data.type)}; ${shape}.`);
  }
  return isObject(data.attributes) ? data.attributes.frequency : undefined;
}

/** An attach or detach body's top-level `page_ids` / `page_tags` list, as given (core parses it). */
export function idListOf(body: unknown, key: 'page_ids' | 'page_tags'): unknown {
  return isObject(body) ? body[key] : undefined;
}

const TAG_SHAPE = 'send {"data":{"type":"tag","attributes":{"name":"...","description":"...","color":"FFFFFF"}}}';

/** A tag body (POST /page_tags, POST /page_tags/{id}): its attributes and the data.id a create may give. */
export function tagBody(body: unknown, mode: 'create' | 'patch'): { id: unknown; attributes: Record<string, unknown> } {
  return resourceOf(body, 'tag', TAG_SHAPE, mode === 'patch');
}
