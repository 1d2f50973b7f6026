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
