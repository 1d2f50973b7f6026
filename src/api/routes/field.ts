import type { AppContext } from '../../context/app-context.js';
import type { Router } from '../router.js';

export function registerFieldRoutes(_r: Router, _ctx: AppContext): void {}
