import { NumberInput, type NumberInputProps } from '@mantine/core';

type WholeNumberInputProps = Omit<NumberInputProps, 'value' | 'onChange'> & {
  value: number;
  onChange(value: number): void;
  /** What an emptied field counts as, so the value is always a number the API accepts. */
  fallback: number;
};

/** A whole number kept between min and max as it is typed. */
export function WholeNumberInput({ value, onChange, fallback, ...props }: WholeNumberInputProps) {
  return (
    <NumberInput
      clampBehavior="strict"
      allowDecimal={false}
      {...props}
      value={value}
      onChange={(next) => onChange(typeof next === 'number' ? next : Number(next) || fallback)}
    />
  );
}
