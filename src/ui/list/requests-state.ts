// What the requests view remembers between renders (held by App, so switching to the cookies
// view and back keeps the selection, the open request and the filter).
import type { DetailTab } from '../detail/detail-tabs.js';
import type { SortKey } from './request-sort.js';

export interface RequestsState {
  /** Follow mode: the newest request is selected as requests arrive. */
  follow: boolean;
  /** Ordinal of the selected request (kept while rows come and go). */
  selected: number | undefined;
  /** The selected row's position on screen. */
  offset: number;
  detailOpen: boolean;
  tab: DetailTab;
  /** First line of the detail pane shown. */
  detailTop: number;
  /** The last filter written (kept when toggled off). */
  filterText: string;
  filterOn: boolean;
  /** The term searched for in the detail pane's open tab (/ there; n and N step). */
  detailSearch: string;
  /** Long JSON arrays and strings shown whole (z). */
  unfold: boolean;
  /** The list's order (o cycles it, O reverses it). */
  sort: SortKey;
  sortReversed: boolean;
}

export const INITIAL_REQUESTS_STATE: RequestsState = {
  follow: true,
  selected: undefined,
  offset: 0,
  detailOpen: false,
  tab: 'timeline',
  detailTop: 0,
  filterText: '',
  filterOn: false,
  detailSearch: '',
  unfold: false,
  sort: 'arrival',
  sortReversed: false,
};
