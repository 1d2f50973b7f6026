import type { WebKit } from '../kit.js';
export function registerCompare(_kit: WebKit): void {}
