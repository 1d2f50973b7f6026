/** Reading `{data:{type, attributes}}` request bodies of the alert and webhook resources (issue 12). */
import { ApiError } from '../errors.js';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const show = (v: unknown): string => (typeof v === 'string' ? `"${v.slice(0, 60)}"` : JSON.stringify(v) ?? String(v));

/**
 * The attributes of a JSON:API body of `type` (data.type may be omitted); E4001 naming what is wrong and the
 * expected `shape` otherwise. A partial update may leave attributes out.
 */
export function resourceAttributes(body: unknown, type: string, shape: string, partial = false): Record<string, unknown> {
  if (!isObject(body) || !isObject(body.data)) throw new ApiError('E4001', `data is missing or not an object; ${shape}`);
  const data = body.data;
  if (data.type !== undefined && data.type !== type) throw new ApiError('E4001', `data.type must be "${type}", got ${show(data.type)}; ${shape}`);
  const a = data.attributes === undefined && partial ? {} : data.attributes;
  if (!isObject(a)) throw new ApiError('E4001', `data.attributes is missing or not an object; ${shape}`);
  return a;
}
