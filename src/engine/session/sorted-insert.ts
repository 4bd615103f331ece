// Inserting into a list kept ascending by a key, for lists whose values mostly arrive in order
// (requests end, and answers come, roughly as recorded): the search starts from the end.

/** Inserts `value` after every element whose key is not greater than its own. */
export function insertSorted<T>(list: T[], value: T, key: (value: T) => number): void {
  let i = list.length;
  while (i > 0 && key(list[i - 1]!) > key(value)) i--;
  list.splice(i, 0, value);
}
