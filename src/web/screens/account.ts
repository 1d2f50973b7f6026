import type { WebKit } from '../kit.js';
export function registerAccountScreen(_kit: WebKit): void {}
