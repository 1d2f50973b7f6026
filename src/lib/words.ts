/** Words of messages and descriptions. */

/** "a, b or c": how messages and descriptions list the words of a vocabulary. */
export function orList(items: readonly (string | number)[]): string {
  const words = items.map(String);
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** "1 request", "3 requests". */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}

/** "812 bytes", "3.4 KiB", "12.0 MiB", "1.2 GiB": a size as an operator reads it. */
export function byteSize(n: number): string {
  if (n < 1024) return plural(n, 'byte');
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
