// Messages between the rule host and its type-check process (type-check-worker.ts).

export interface TypeCheckRequest {
  id: number;
  /** The rules folder: its tsconfig.json, when there is one, gives the compiler options. */
  rulesDir: string;
  /** Files to report on: a rule and the local helpers it imports. */
  files: string[];
  /** Where `wrtui/rules` resolves when the folder's tsconfig does not map it. */
  authorTypes: string;
}

export interface TypeDiagnostic {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** TypeScript's error number, e.g. 2322. */
  code: number;
  message: string;
}

export type TypeCheckResponse =
  | { id: number; diagnostics: TypeDiagnostic[] }
  | { id: number; error: string };
