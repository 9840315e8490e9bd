// How the page writes a value (a parameter, a metric, a coordinate): one rule everywhere.

/** Integers whole, other numbers to five significant digits, anything else as its text. */
export function formatValue(v) {
  if (typeof v === 'string') return v;
  if (typeof v !== 'number' || !isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(5)));
}
