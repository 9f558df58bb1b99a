/**
 * Runs before each test file of the unit, integration and monitoring projects. Hooks are registered here,
 * not when a support module is imported: the unit project shares one module graph per worker
 * (isolate: false), so a module's top-level code runs for the first file that imports it only.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './temp-dirs.js';

afterAll(removeTempDirs);
