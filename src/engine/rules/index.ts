// Rule files: one-file extensions, loaded by the extension host (../extensions/extension-host.ts).
export type { TypeDiagnostic } from './rule-type-checker.js';
export type { RuleBackground, RuleContext, RuleManifest, RulePermission } from './author-types.js';
