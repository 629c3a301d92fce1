// @tier unit
import { describe, expect, it } from 'vitest';
import { loginLocalPart } from './login-names.js';

describe('generated login e-mail names', () => {
  it('reads as a person would type the name: letters transliterated, not dropped', () => {
    expect(loginLocalPart('Ingrid Sørensen', 'student')).toBe('ingrid.sorensen');
    expect(loginLocalPart('Łukasz Zhang', 'student')).toBe('lukasz.zhang');
    expect(loginLocalPart('Jürgen Groß', 'student')).toBe('juergen.gross');
    expect(loginLocalPart('Ada Lovelace', 'student')).toBe('ada.lovelace');
  });

  it('leaves out a leading title, but never the whole name', () => {
    expect(loginLocalPart('Mme Hélène Rousseau', 'faculty')).toBe('helene.rousseau');
    expect(loginLocalPart('Dr Aoife Ní Bhriain', 'faculty')).toBe('aoife.ni.bhriain');
    expect(loginLocalPart('Ms. Ingrid Sørensen', 'faculty')).toBe('ingrid.sorensen');
    expect(loginLocalPart('Dr', 'faculty')).toBe('dr');
  });

  it('falls back to the role when nothing typeable is left, and stays short', () => {
    expect(loginLocalPart('—', 'student')).toBe('student');
    expect(loginLocalPart('a'.repeat(60), 'student')).toHaveLength(40);
  });
});
