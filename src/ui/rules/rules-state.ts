// What the rules view remembers between renders (held by App).
export interface RulesState {
  /** Name of the selected rule (file order may change as files come and go). */
  selected: string | undefined;
  index: number;
  offset: number;
  /** The selected rule's details take the whole lower part (enter). */
  expanded: boolean;
  /** First line of the details shown. */
  detailsTop: number;
}

export const INITIAL_RULES_STATE: RulesState = { selected: undefined, index: 0, offset: 0, expanded: false, detailsTop: 0 };
