/** The API's JSON schemas (src/api/schemas) as tests read them. */
export type Schema = { properties?: Record<string, Schema>; enum?: unknown[]; anyOf?: Schema[]; type?: string };

/** The properties of `schema` at `path` (property names): propertiesOf(REPORT_SCHEMAS.Report, 'attributes'). */
export const propertiesOf = (schema: unknown, ...path: string[]): Record<string, Schema> => {
  let at = schema as Schema;
  for (const p of path) at = at.properties![p];
  return at.properties!;
};
