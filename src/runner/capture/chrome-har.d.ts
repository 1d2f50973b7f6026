// chrome-har ships without type declarations; this is the part we use.
declare module 'chrome-har' {
  export interface HarOptions {
    includeResourcesFromDiskCache?: boolean;
    includeTextFromResponseBody?: boolean;
  }
  export function harFromMessages(
    messages: readonly { method: string; params: unknown }[],
    options?: HarOptions,
  ): { log: Record<string, unknown> };
}
