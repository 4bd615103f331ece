// What the cookies view remembers between renders (held by App).
export interface CookiesState {
  storeId: string;
  /** Identity of the selected cookie (store, domain, path, name), kept while others come and go. */
  selectedKey: string | undefined;
  /** Where it was, for when it is gone. */
  index: number;
  offset: number;
}

export const INITIAL_COOKIES_STATE: CookiesState = { storeId: '0', selectedKey: undefined, index: 0, offset: 0 };
