import type { WebKit } from '../kit.js';
export function registerTagScreens(_kit: WebKit): void {}
