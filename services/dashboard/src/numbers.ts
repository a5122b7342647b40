// Numbers as the screens write them.
const format = new Intl.NumberFormat();

export const formatNumber = (value: number) => format.format(value);

/** "1 event", "2 events". */
export const countOf = (value: number, noun: string) => `${format.format(value)} ${value === 1 ? noun : `${noun}s`}`;
