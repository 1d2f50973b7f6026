import type { WebKit } from '../kit.js';
export function registerPageScreens(_kit: WebKit): void {}
