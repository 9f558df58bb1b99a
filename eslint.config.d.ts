import type { Linter } from 'eslint';

/** The house rules (sizes, import boundaries, purity); see eslint.config.js. */
export declare const houseRules: Linter.Config[];
declare const config: Linter.Config[];
export default config;
