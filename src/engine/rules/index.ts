// Rule files: what the CLI and the UI use. See rule-host.ts for how rules load and reload.
export { RuleHost, type RuleHostOptions, type RuleProblem, type RuleState, type RuleStatus } from './rule-host.js';
export type { TypeDiagnostic } from './rule-type-checker.js';
export type { RuleBackground, RuleContext, RuleManifest, RulePermission } from './author-types.js';
