// How the requests view splits its area between the list and the detail pane: side by side on
// wide terminals, stacked (list on top, a third of the height) otherwise.

export interface RequestsLayout {
  sideBySide: boolean;
  listWidth: number;
  /** Request rows (the list's two title lines not included). */
  listRows: number;
  detailWidth: number;
  detailHeight: number;
}

export const SIDE_BY_SIDE_MIN_WIDTH = 160;
const LIST_TITLE_LINES = 2;

export function requestsLayout(width: number, height: number, detailOpen: boolean): RequestsLayout {
  if (!detailOpen) return { sideBySide: false, listWidth: width, listRows: Math.max(1, height - LIST_TITLE_LINES), detailWidth: 0, detailHeight: 0 };
  if (width >= SIDE_BY_SIDE_MIN_WIDTH) {
    const listWidth = Math.floor(width * 0.45);
    return { sideBySide: true, listWidth, listRows: Math.max(1, height - LIST_TITLE_LINES), detailWidth: width - listWidth - 1, detailHeight: height };
  }
  const listHeight = Math.max(LIST_TITLE_LINES + 3, Math.floor(height * 0.35));
  return { sideBySide: false, listWidth: width, listRows: listHeight - LIST_TITLE_LINES, detailWidth: width, detailHeight: Math.max(2, height - listHeight) };
}
