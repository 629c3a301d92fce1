// @tier unit
// The portal's imports of a school's own files, below the browser (ui/src/pages/imports/): names
// as files give them ("Family, Given", separate given and family columns), which column is which,
// members by the school's student number, re-imports planned as created, updated and unchanged
// before anything is written, and classes that become groups.
import { describe, expect, it } from 'vitest';
import { classProblem, MAX_MEMBERS, placementSteps, planClasses } from '../ui/src/pages/imports/classes.js';
import {
  CHUNK,
  countPlan,
  emailCheckKey,
  emailChecks,
  facultyImport,
  mappingProblem,
  memberImport,
  nextChunk,
  outcomesInWords,
  planInWords,
  planRows,
  sendingOrder,
  studentImport,
  type ImportMode,
  type PlanSettings,
} from '../ui/src/pages/imports/kinds.js';
import { joinName, namePartWarning, nameOfRow, preferNameParts, storedName } from '../ui/src/pages/imports/names.js';
import { EMPTY_CONTEXT, indexContext, resolveStudent, type Existing, type ImportContext } from '../ui/src/pages/imports/roster.js';
import { guessMapping, looksLikeHeader, parseTable } from '../ui/src/pages/imports/table.js';

const ada: Existing = { id: 'stu_ada', login_email: 'ada.lovelace@hillside.campusbridge.local', full_name: 'Ada Lovelace', external_id: 'S-1' };
const alan: Existing = { id: 'stu_alan', login_email: 'alan.turing@hillside.campusbridge.local', full_name: 'Alan Turing', external_id: 'S-2' };
const grace: Existing = { id: 'stu_grace', login_email: 'grace.hopper@hillside.campusbridge.local', full_name: 'Grace Hopper', external_id: null };

const settings = (mode: ImportMode, context: Partial<ImportContext>, sameEmail: ReadonlyMap<string, boolean> = new Map()): PlanSettings => ({
  mode,
  index: indexContext({ ...EMPTY_CONTEXT, ...context }),
  sameEmail,
});

/** A file as the wizard plans it: read, its header recognised, its columns guessed. */
function plan(kind: typeof studentImport, text: string, planSettings?: PlanSettings) {
  const { rows } = parseTable(text);
  const mapping = preferNameParts(guessMapping(kind.fields, rows[0]!, rows[0]!.length));
  return { mapping, rows: planRows(kind, rows, true, mapping, planSettings) };
}

describe('names', () => {
  it('stores "Family, Given" (exactly one comma, text on both sides) as "Given Family", and any other name as it is', () => {
    expect(storedName('Ashworth-Smythe, Liam')).toBe('Liam Ashworth-Smythe');
    expect(storedName('Lovelace ,  Ada')).toBe('Ada Lovelace');
    expect(storedName('Ada Lovelace')).toBe('Ada Lovelace');
    expect(storedName('King, Martin Luther, Jr.')).toBe('King, Martin Luther, Jr.');
    expect(storedName('Lovelace,')).toBe('Lovelace,');
    expect(storedName(', Ada')).toBe(', Ada');
  });

  it('joins given and family names, either of which may be missing', () => {
    expect(joinName('Marie', 'Dupont')).toBe('Marie Dupont');
    expect(joinName(' Marie ', '')).toBe('Marie');
    expect(joinName('', 'Dupont')).toBe('Dupont');
    expect(nameOfRow({ full_name: 'x', given_name: 'Jean-Luc', family_name: 'Picard' }, { full_name: null, given_name: 1, family_name: 2 })).toBe(
      'Jean-Luc Picard',
    );
    expect(nameOfRow({ full_name: 'Picard, Jean-Luc', given_name: '', family_name: '' }, { full_name: 0, given_name: null, family_name: null })).toBe(
      'Jean-Luc Picard',
    );
  });

  it('asks for a name column, or the parts, and not both', () => {
    const mapping = { full_name: null, given_name: null, family_name: null, external_id: 0, personal_email: null, class: null };
    expect(mappingProblem(studentImport, mapping)).toBe('Choose the column of: Name (or Given name and Family name).');
    expect(mappingProblem(studentImport, { ...mapping, family_name: 1 })).toBeNull();
    expect(mappingProblem(studentImport, { ...mapping, full_name: 2, family_name: 1 })).toBe('Choose either Name or the given and family names, not both.');
    expect(mappingProblem(memberImport('grp_x'), { student: null })).toBe('Choose the column of: Student (student number, login e-mail or id).');
  });

  it('warns when only one part is chosen and an unchosen column looks like the other, however it is titled', () => {
    const fields = studentImport.fields;
    const onlyFamily = { full_name: null, given_name: null, family_name: 0, external_id: null, personal_email: null, class: null };
    expect(namePartWarning(fields, ['Nom', 'Prénom', 'Classe'], onlyFamily)).toBe(
      'Only the family name is chosen, but column 2 ("Prénom") looks like the given name. Choose it as Given name, or each name will be the family name alone.',
    );
    expect(namePartWarning(fields, ['Nom', 'Prénom usuel'], onlyFamily)).toContain('column 2 ("Prénom usuel")');
    expect(namePartWarning(fields, ['Legal First Name(s)', 'Surname'], { ...onlyFamily, family_name: null, given_name: 0 })).toBe(
      'Only the given name is chosen, but column 2 ("Surname") looks like the family name. Choose it as Family name, or each name will be the given name alone.',
    );
    // "nom" inside "Nombre" or "Prénom" is not a family name; a family e-mail is an e-mail.
    expect(namePartWarning(fields, ['Prénom', 'Nombre de frères', 'Family email'], { ...onlyFamily, family_name: null, given_name: 0 })).toBeNull();
    expect(namePartWarning(fields, ['Nom', 'Prénom'], { ...onlyFamily, given_name: 1 })).toBeNull();
    expect(namePartWarning(fields, null, onlyFamily)).toBeNull();
  });
});

describe('column guessing', () => {
  it('maps a French export: ";" separated, Nom and Prénom (with or without the accent) as the family and given names, Classe as the class', () => {
    const { rows } = parseTable('Nom;Prénom;Classe;Courriel\nDupont;Marie;5e A;marie@example.fr\n');
    expect(looksLikeHeader(rows[0], studentImport.fields)).toBe(true);
    expect(guessMapping(studentImport.fields, rows[0]!, 4)).toEqual({
      full_name: null,
      given_name: 1,
      family_name: 0,
      external_id: null,
      personal_email: 3,
      class: 2,
    });
    expect(guessMapping(studentImport.fields, ['PRENOM', 'NOM'], 2)).toMatchObject({ given_name: 0, family_name: 1 });
  });

  it('prefers the parts when a file has a name column too, and reads the Spanish and English titles', () => {
    const { mapping } = plan(studentImport, 'Student Name,First Name,Last Name,Homeroom\nx,Ada,Lovelace,7A\n');
    expect(mapping).toMatchObject({ full_name: null, given_name: 1, family_name: 2, class: 3 });
    expect(guessMapping(studentImport.fields, ['Nombre', 'Apellido', 'Section'], 3)).toMatchObject({ given_name: 0, family_name: 1, class: 2 });
  });

  it("maps a SIS export's student number for students and for members", () => {
    const header = ['Student Number', 'Student Name', 'Homeroom'];
    expect(guessMapping(studentImport.fields, header, 3)).toMatchObject({ full_name: 1, external_id: 0, class: 2, given_name: null });
    expect(guessMapping(memberImport('grp_x').fields, header, 3)).toEqual({ student: 0 });
  });
});

describe('members', () => {
  const index = indexContext({ ...EMPTY_CONTEXT, people: [ada, alan, grace], members: [alan.id] });

  it("resolves the school's student number, the login e-mail in any case, and the appliance id", () => {
    expect(resolveStudent(index, 'S-1')).toBe(ada);
    expect(resolveStudent(index, 'GRACE.Hopper@hillside.campusbridge.local')).toBe(grace);
    expect(resolveStudent(index, 'stu_alan')).toBe(alan);
    expect(resolveStudent(index, 's-1')).toBeUndefined();
    expect(resolveStudent(index, 'nobody@hillside.campusbridge.local')).toBeUndefined();
  });

  it('says in the preview who is not found, who is named twice, and who is already in the group', () => {
    const { rows } = plan(
      memberImport('grp_x'),
      'Student Number,Student Name\nS-1,Ada\nS-9,Nobody\nS-2,Alan\nada.lovelace@hillside.campusbridge.local,Ada again\nstu_grace,Grace\n',
      { mode: 'add', index, sameEmail: new Map() },
    );
    expect(rows.map((row) => [row.line, row.action, row.target?.id ?? null, row.problem])).toEqual([
      [2, 'create', 'stu_ada', null],
      [3, 'create', null, 'No student has the student number, login e-mail or id "S-9".'],
      [4, 'unchanged', 'stu_alan', null],
      [5, 'create', null, 'ada.lovelace@hillside.campusbridge.local is Ada Lovelace, who is also on line 2.'],
      [6, 'create', 'stu_grace', null],
    ]);
    expect(planInWords(memberImport('grp_x'), countPlan(rows), 'add')).toBe('2 will be added, 1 already members');
  });
});

describe('re-imports', () => {
  const people = [ada, alan];
  const file = 'Name,Student ID,Personal email\n"Lovelace, Ada",S-1,\nAlan M. Turing,S-2,alan@example.org\nKatherine Johnson,S-3,\nNo ID Yet,,\n';

  it("makes a row whose ID is already someone's a problem in words without update mode", () => {
    const { rows } = plan(studentImport, file, settings('add', { people }));
    expect(rows.map((row) => [row.action, row.problem])).toEqual([
      ['create', 'Student ID S-1 is already Ada Lovelace\'s; choose "Add new and update existing" to update.'],
      ['create', 'Student ID S-2 is already Alan Turing\'s; choose "Add new and update existing" to update.'],
      ['create', null],
      ['create', null],
    ]);
  });

  it('plans created, updated (with what changes) and unchanged rows, comparing personal e-mails first', () => {
    const draft = plan(studentImport, file, settings('update', { people })).rows;
    // The stored name of line 2 is Ada's already; line 3's e-mail is not compared yet.
    expect(draft.map((row) => [row.values.full_name, row.action, row.changes, row.checking])).toEqual([
      ['Ada Lovelace', 'unchanged', [], false],
      ['Alan M. Turing', 'update', ['name'], true],
      ['Katherine Johnson', 'create', [], false],
      ['No ID Yet', 'create', [], false],
    ]);
    expect(emailChecks(draft)).toEqual([{ key: emailCheckKey(alan.id, 'alan@example.org'), person: alan, email: 'alan@example.org' }]);
    expect(countPlan(draft).checking).toBe(1);

    const changed = plan(studentImport, file, settings('update', { people }, new Map([[emailCheckKey(alan.id, 'ALAN@example.org'), false]]))).rows;
    expect(changed[1]!.changes).toEqual(['name', 'personal e-mail']);
    expect(changed[1]!.checking).toBe(false);
    const counts = countPlan(changed);
    expect(counts).toMatchObject({ ready: 4, problems: 0, create: 2, update: 1, unchanged: 1, checking: 0 });
    expect(planInWords(studentImport, counts, 'update')).toBe('2 will be created, 1 updated (name 1, personal e-mail 1), 1 unchanged');

    const same = plan(studentImport, 'Name,Student ID,Personal email\nAlan Turing,S-2,alan@example.org\n', {
      ...settings('update', { people }, new Map([[emailCheckKey(alan.id, 'alan@example.org'), true]])),
    }).rows;
    expect(same.map((row) => [row.action, row.changes])).toEqual([['unchanged', []]]);
  });

  it('plans faculty by faculty ID, names only', () => {
    const teachers = [{ id: 'fac_1', login_email: 't@x.test', full_name: 'Grace Hoper', external_id: 'T-100' }];
    const { rows } = plan(facultyImport, 'Teacher,Staff ID\n"Hopper, Grace",T-100\nAlan Kay,T-101\n', settings('update', { people: teachers }));
    expect(rows.map((row) => [row.values.full_name, row.action, row.changes, row.target?.id ?? null])).toEqual([
      ['Grace Hopper', 'update', ['name'], 'fac_1'],
      ['Alan Kay', 'create', [], null],
    ]);
  });

  it('tells the end of an import in words, with what it updated and left', () => {
    const outcome = (line: number, result: 'created' | 'updated' | 'unchanged' | 'rejected') => ({ line, result, id: null, detail: '' });
    const outcomes = [outcome(2, 'created'), outcome(3, 'updated'), outcome(4, 'unchanged'), outcome(5, 'unchanged'), outcome(6, 'rejected')];
    expect(outcomesInWords(facultyImport, outcomes, 1, 'update')).toBe('1 faculty member created, 1 updated, 2 unchanged, 2 rejected');
    expect(outcomesInWords(studentImport, [outcome(2, 'created'), outcome(3, 'created')], 0, 'add')).toBe('2 students created, 0 rejected');
  });
});

describe('classes', () => {
  const groups = [
    { id: 'grp_7a', name: '7A' },
    { id: 'grp_x1', name: 'Chess club' },
    { id: 'grp_x2', name: 'chess club ' },
  ];
  const index = indexContext({ ...EMPTY_CONTEXT, groups });

  it('matches groups by their exact name, trimmed and without case, and refuses a class two groups share', () => {
    expect(classProblem('7a', index)).toBeNull();
    expect(classProblem('CHESS CLUB', index)).toBe('2 groups are named "CHESS CLUB": rename one so the class says which.');
    expect(classProblem('x'.repeat(201), index)).toBe('The class name is longer than 200 characters.');
  });

  it('plans the groups to create and the students to place, in the order the file names them', () => {
    const { rows } = plan(studentImport, 'Student Number,Student Name,Homeroom\n1,A One,7a\n2,B Two,5ème B\n3,C Three,5ÈME B\n4,D Four,\n5,,7A\n', {
      ...settings('add', { groups }),
    });
    const classes = planClasses(rows, index);
    expect(classes.map((planned) => [planned.name, planned.group?.id ?? null, planned.lines])).toEqual([
      ['7a', 'grp_7a', [2]],
      ['5ème B', null, [3, 4]],
    ]);

    const outcomes = [
      { line: 2, id: 'stu_1' },
      { line: 3, id: null },
      { line: 4, id: 'stu_3' },
    ];
    expect(placementSteps(classes, outcomes, 'fac_owner')).toEqual({
      steps: [
        { key: '7a', name: '7a', groupId: 'grp_7a', lines: [2], studentIds: ['stu_1'] },
        { key: '5ème b', name: '5ème B', groupId: null, lines: [4], studentIds: ['stu_3'] },
      ],
      skipped: [],
    });
    // Without an owner a new group cannot be made: its students are said to be left out.
    expect(placementSteps(classes, outcomes, null)).toEqual({
      steps: [{ key: '7a', name: '7a', groupId: 'grp_7a', lines: [2], studentIds: ['stu_1'] }],
      skipped: [{ line: 4, placed: 'not placed', words: 'not placed in 5ème B: no faculty member to own a new group' }],
    });
  });

  it('places a class larger than one request allows in several', () => {
    const lines = Array.from({ length: MAX_MEMBERS + 1 }, (_, i) => i + 2);
    const { steps } = placementSteps(
      [{ key: 'all', name: 'All', group: null, lines }],
      lines.map((line) => ({ line, id: `stu_${line}` })),
      'fac_owner',
    );
    expect(steps.map((step) => [step.groupId, step.studentIds.length])).toEqual([
      [null, MAX_MEMBERS],
      [null, 1],
    ]);
  });
});

describe('sending', () => {
  it('sends chunks of one action each, creations first, so a stopped chunk is never half created and half updated', () => {
    const people = [ada, alan];
    const lines = [
      'Name,Student ID',
      'Alan M. Turing,S-2',
      'Ada Lovelace,S-1',
      ...Array.from({ length: CHUNK + 1 }, (_, i) => `New Learner ${i},N-${i}`),
      'Bad,S-2',
    ];
    const { rows } = plan(studentImport, lines.join('\n'), settings('update', { people }));
    const sendable = sendingOrder(rows);
    expect(sendable).toHaveLength(CHUNK + 3); // the repeated S-2 is a problem, not sent
    const chunks: Array<[string, number]> = [];
    for (let sent = 0; sent < sendable.length;) {
      const chunk = nextChunk(sendable, sent);
      expect(new Set(chunk.map((row) => row.action)).size).toBe(1);
      chunks.push([chunk[0]!.action, chunk.length]);
      sent += chunk.length;
    }
    expect(chunks).toEqual([
      ['create', CHUNK],
      ['create', 1],
      ['update', 1],
      ['unchanged', 1],
    ]);
  });
});
