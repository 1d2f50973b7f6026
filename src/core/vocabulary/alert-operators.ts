/**
 * The operators of an alert condition: the API's names (core/alerts/alerts.ts parses them) and the symbol a
 * threshold is written with, in the app's alert list and the alert e-mail. A regression has no symbol: it is
 * written out ("regression of 10 % or more").
 */
export const OPERATORS = ['gt', 'gte', 'lt', 'lte', 'regression'] as const;
export type Operator = (typeof OPERATORS)[number];

export const OPERATOR_SYMBOLS: Readonly<Record<Exclude<Operator, 'regression'>, string>> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };

/** "> 3000" for a threshold operator; undefined for a regression (or a name that is no operator). */
export const operatorSymbol = (op: string): string | undefined => (OPERATOR_SYMBOLS as Record<string, string>)[op];
