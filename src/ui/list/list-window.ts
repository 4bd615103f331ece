// Which rows of a long list are on screen. The selection is an index plus its row within the
// window (offset), so the selected line stays where it was on screen while rows are added,
// dropped at the top (the cap) or filtered, and the window never shows blank rows below the end.

export interface ListWindow {
  /** Selected index in the list (-1 when the list is empty). */
  index: number;
  /** The selected row's position in the window. */
  offset: number;
  /** Index of the first row on screen. */
  top: number;
}

export function placeWindow(index: number, offset: number, height: number, total: number): ListWindow {
  if (total <= 0 || height <= 0) return { index: -1, offset: 0, top: 0 };
  const clampedIndex = Math.min(Math.max(0, index), total - 1);
  let clampedOffset = Math.min(Math.max(0, offset), height - 1, clampedIndex);
  let top = clampedIndex - clampedOffset;
  if (total >= height && top + height > total) {
    top = total - height;
    clampedOffset = clampedIndex - top;
  }
  return { index: clampedIndex, offset: clampedOffset, top };
}

/** Moves the selection by `delta` rows; the window scrolls only when the selection leaves it. */
export function moveWindow(current: ListWindow, delta: number, height: number, total: number): ListWindow {
  return placeWindow(current.index + delta, current.offset + delta, height, total);
}

/** Moves by a page: the selection keeps its row on screen and the content scrolls under it. */
export function pageWindow(current: ListWindow, pages: number, height: number, total: number): ListWindow {
  return placeWindow(current.index + pages * Math.max(1, height - 1), current.offset, height, total);
}
