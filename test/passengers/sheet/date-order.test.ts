import { readDateColumn } from '../../../src/passengers/sheet/date-order';

const column = (...values: unknown[]) => values.map((value, i) => ({ sheetRow: i + 2, value }));

describe('readDateColumn', () => {
  it('reads a column in the order its one-way dates prove, without a warning when that is the order asked', () => {
    expect(readDateColumn('DOB', column('17/05/1980', '05/06/1984', null, new Date(0), 31072), 'DMY')).toEqual({ order: 'DMY', conflicts: new Map(), proof: { sheetRow: 2, value: '17/05/1980' } });
    expect(readDateColumn('DOB', column('05/17/1980', '05/06/1984'), 'MDY')).toEqual({ order: 'MDY', conflicts: new Map(), proof: { sheetRow: 2, value: '05/17/1980' } });
  });

  it('warns when the proven order is not the one asked and dates that read both ways follow it', () => {
    const reading = readDateColumn('DOB', column('17.05.1980', '05.06.1984'), 'MDY');
    expect(reading.order).toBe('DMY');
    expect(reading.warning).toBe(
      'Column "DOB" was read day first (DD/MM/YYYY), not month first as asked: "17.05.1980" (sheet row 2) can only be read so. So was its one date that reads both ways, e.g. "05.06.1984" (sheet row 3) as 1984-06-05',
    );
    // Without dates that read both ways, the order changes no value: nothing to warn about.
    expect(readDateColumn('DOB', column('17/05/1980'), 'MDY')).toMatchObject({ order: 'DMY', conflicts: new Map() });
    expect(readDateColumn('DOB', column('05/17/1980', '1980-05-17'), 'DMY')).toMatchObject({ order: 'MDY', conflicts: new Map() });
    expect(readDateColumn('DOB', column('05/17/1980', '1980-05-17'), 'DMY').warning).toBeUndefined();
  });

  it('needs no warning for dates that are the same day either way, ISO dates or date cells', () => {
    expect(readDateColumn('DOB', column('05/05/1980', '1980-05-17', new Date(0)), 'DMY')).toEqual({ order: 'DMY', conflicts: new Map() });
  });

  it('refuses the minority of a column that contradicts itself, and both sides on a tie', () => {
    const majority = readDateColumn('DOB', column('25/12/1979', '05/17/1980', '13/01/1990', '05/06/1984'), 'MDY');
    expect(majority.order).toBe('DMY');
    expect([...majority.conflicts.keys()]).toEqual([3]);
    const tie = readDateColumn('DOB', column('25/12/1979', '05/17/1980', '05/06/1984'), 'DMY');
    expect(tie.order).toBe('DMY');
    expect(tie.conflicts).toEqual(
      new Map([
        [2, '"25/12/1979" can only be read day first (DD/MM/YYYY), while "05/17/1980" (sheet row 3) in the same column can only be read month first (MM/DD/YYYY), and as many dates go each way; write this date as YYYY-MM-DD (read day first it is 1979-12-25) or correct it'],
        [3, '"05/17/1980" can only be read month first (MM/DD/YYYY), while "25/12/1979" (sheet row 2) in the same column can only be read day first (DD/MM/YYYY), and as many dates go each way; write this date as YYYY-MM-DD (read month first it is 1980-05-17) or correct it'],
      ]),
    );
  });

  it('follows a month-first majority, and on a tie the order asked', () => {
    const majority = readDateColumn('Born', column('05/17/1980', '05/18/1980', '25/12/1979', '01/02/1990'), 'DMY');
    expect(majority.order).toBe('MDY');
    expect(majority.warning).toBeUndefined();
    expect(majority.conflicts).toEqual(
      new Map([
        [4, '"25/12/1979" can only be read day first (DD/MM/YYYY), while most dates of the column (2 against 1, such as "05/17/1980" in sheet row 2) can only be read month first (MM/DD/YYYY); write this date as YYYY-MM-DD (read day first it is 1979-12-25) or correct it'],
      ]),
    );
    const tie = readDateColumn('DOB', column('25/12/1979', '05/17/1980'), 'MDY');
    expect(tie.order).toBe('MDY');
    expect([...tie.conflicts.keys()]).toEqual([2, 3]);
  });

  it('warns when a column proven month first is read so against the order asked, counting the dates that read both ways', () => {
    const reading = readDateColumn('DOB', column(' 05/06/1984 ', '05/17/1980', '07/08/1990'), 'DMY');
    expect(reading.order).toBe('MDY');
    expect(reading.warning).toBe(
      'Column "DOB" was read month first (MM/DD/YYYY), not day first as asked: "05/17/1980" (sheet row 3) can only be read so. So were its 2 dates that read both ways, e.g. "05/06/1984" (sheet row 2) as 1984-05-06',
    );
  });

  it('reads a column whose every text date reads both ways in the order asked, saying how to upload it the other way', () => {
    expect(readDateColumn('DOB', column('05/06/1980', '07/08/1990'), 'DMY')).toEqual({
      order: 'DMY',
      conflicts: new Map(),
      warning:
        'Column "DOB": every text date reads both day first and month first, so its 2 dates that read both ways were read day first (DD/MM/YYYY), the upload\'s date order (dateOrder DMY): "05/06/1980" (sheet row 2) is 1980-06-05. If the list is written month first, upload it again with dateOrder MDY, or write the dates as YYYY-MM-DD',
    });
    expect(readDateColumn('DOB', column('1990-01-01', '05/06/1980'), 'MDY').warning).toBe(
      'Column "DOB": every text date reads both day first and month first, so its one date that reads both ways was read month first (MM/DD/YYYY), the upload\'s date order (dateOrder MDY): "05/06/1980" (sheet row 3) is 1980-05-06. If the list is written day first, upload it again with dateOrder DMY, or write the dates as YYYY-MM-DD',
    );
  });

  it('gives no day for a contradicting date whose year is out of range (the field rule refuses it)', () => {
    const reading = readDateColumn('DOB', column('05/17/1980', '05/18/1980', '25/12/1700'), 'DMY');
    expect(reading.conflicts.get(4)).toMatch(/write this date as YYYY-MM-DD \(read day first it is YYYY-MM-DD\) or correct it$/);
  });

  it('leaves dates that are no date either way to the field rule', () => {
    expect(readDateColumn('DOB', column('31/31/1980', '05/06/1984'), 'DMY').conflicts.size).toBe(0);
  });

  it('warns of date cells with a day up to 12 beside text dates proving an order: the texts a program set to the other order turned into dates', () => {
    // A UK list opened in a US Excel: 03/04/1985 (3 April) became a cell of 4 March, 17/05/1980 stayed text.
    const day = (year: number, month: number, date: number) => new Date(Date.UTC(year, month - 1, date));
    const ukInUs = readDateColumn('DOB', column('17/05/1980', day(1985, 3, 4), day(1990, 6, 6), day(1991, 1, 20), day(1992, 2, 7), '23/06/1990'), 'DMY');
    expect(ukInUs.order).toBe('DMY');
    expect(ukInUs.cellWarning).toBe(
      'Column "DOB" holds 2 date cells beside text dates that can only be read day first (DD/MM/YYYY) (such as "17/05/1980", sheet row 2): a spreadsheet program set to read dates month first turns a text such as 03/04/1985 (3 April) into a cell of 4 March, and leaves the texts it cannot read as text. The date cells were read as they are: sheet row 3 holds 1985-03-04, which the other way round is 1985-04-03. Check them, or write the dates as YYYY-MM-DD',
    );
    // A day over 12, or the same day either way, cannot have been turned; a number is no date cell (the field rule refuses it).
    expect(readDateColumn('DOB', column('05/17/1980', day(1985, 1, 25), day(1985, 5, 5), 31107), 'DMY').cellWarning).toBeUndefined();
    expect(readDateColumn('DOB', column('05/17/1980', day(1985, 3, 1)), 'DMY').cellWarning).toMatch(/^Column "DOB" holds 1 date cell beside text dates that can only be read month first/);
    // Date cells alone, or beside dates that prove nothing, are what they are.
    expect(readDateColumn('DOB', column(new Date(Date.UTC(1985, 2, 4)), '05/06/1984'), 'DMY').cellWarning).toBeUndefined();
  });

  it('reads a column whose dates prove no order as the file\'s other column proves, saying so', () => {
    const reading = readDateColumn('Expiry', column('03/04/2030', '06/05/2031'), 'DMY', { fileOrder: { order: 'MDY', heading: 'DOB', proof: { sheetRow: 2, value: '5/17/1980' } } });
    expect(reading.order).toBe('MDY');
    expect(reading.warning).toBe(
      'Column "Expiry": every text date reads both day first and month first, so its 2 dates that read both ways were read month first (MM/DD/YYYY), as column "DOB" of the same list is written ("5/17/1980", sheet row 2, can only be read so): "03/04/2030" (sheet row 2) is 2030-03-04. If this column is written day first, write its dates as YYYY-MM-DD',
    );
  });
});
