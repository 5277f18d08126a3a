import countries from 'i18n-iso-countries';
import request from 'supertest';
import { PassengerListDownloadUrlDocument, PassengerListExportsDocument } from '../../src/graphql/generated/operations';
import { transliterateIcao } from '../../src/passengers/export/icao-transliteration';
import { carrierOf } from '../../src/passengers/export/passenger-paxlst.writer';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

// The independent reader: the `edifact` package's streaming parser (CommonJS, untyped).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Parser = require('edifact/parser.js') as new () => {
  encoding(level: string): void;
  on(event: string, listener: (data?: string) => void): void;
  write(text: string): void;
  end(): void;
};

interface Segment {
  tag: string;
  elements: string[][];
}

/** The interchange as the parser reads it: each segment's tag and its elements' components (UNA read by the parser). */
function parseEdifact(text: string): Segment[] {
  const parser = new Parser();
  parser.encoding('UNOA');
  const segments: Segment[] = [];
  parser.on('opensegment', (tag) => segments.push({ tag: tag!, elements: [] }));
  parser.on('element', () => segments[segments.length - 1].elements.push([]));
  parser.on('component', (data) => {
    const elements = segments[segments.length - 1].elements;
    elements[elements.length - 1].push(data!);
  });
  parser.write(text);
  parser.end();
  return segments;
}

/** A segment as text again, components joined by ':' and elements by '+' (unescaped values). */
const show = (segment: Segment) => [segment.tag, ...segment.elements.map((element) => element.join(':'))].join('+');

const binary = (res: request.Response, callback: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
};

/**
 * The structure of the air-mode PAXLST of the WCO/IATA/ICAO PAXLST Implementation Guide (Appendix
 * IIA to the API Guidelines, version 6.0, 2016), as its example 5.1 (single-sector flight,
 * passengers) lays it out; a public reproduction of the example is in adamf/jetway's
 * pkg/paxlst/paxlst_test.go. Each segment is keyed by its tag and, where it has one, its
 * qualifier; the pattern is the guide's segment groups in the guide's order, conditional parts
 * optional. Only the structure is written here, not the example's data.
 */
const QUALIFIED = new Set(['BGM', 'NAD', 'ATT', 'DTM', 'LOC', 'NAT', 'RFF', 'TDT', 'CNT', 'MEA', 'GEI', 'FTX']);
const GUIDE_STRUCTURE = new RegExp(
  '^' +
    [
      'UNB UNG ', // interchange header; the functional group the examples put around the message
      'UNH BGM\\+745 (RFF\\+TN )?', // message header, beginning of message, transaction reference
      '(NAD\\+MS (COM )?)', // group 1: the reporting party and its contact
      '(TDT\\+20 (LOC\\+(125|87|92|130) (DTM\\+(189|232) )?)+)+', // group 2: each leg; group 3: its places and times
      // group 4: each person, the segments in the guide's order, then group 5: each travel document
      '(NAD\\+FL (ATT\\+2 )?(DTM\\+329 )?(MEA\\+\\w+ )*(GEI\\+4 )?(FTX\\+BAG )*(LOC\\+22 )?(LOC\\+174 )?(LOC\\+178 )?(LOC\\+179 )?(LOC\\+180 )?(COM )?(NAT\\+2 )?(RFF\\+(AVF|ABO|SEA) )*(DOC (DTM\\+36 )?(LOC\\+91 )?)*)*',
      'CNT\\+42 UNT UNE UNZ ', // control total, trailers
    ].join('') +
    '$',
);

/** Components without their trailing empty ones, elements without trailing empty ones (`ATT+2++M` → [[2], [], [M]]). */
const trimmed = (segment: Segment) => {
  const elements = segment.elements.map((element) => {
    const components = [...element];
    while (components.length && components[components.length - 1] === '') components.pop();
    return components;
  });
  while (elements.length && elements[elements.length - 1].length === 0) elements.pop();
  return elements;
};

const isAlpha3 = (code: string | undefined) => code !== undefined && /^[A-Z]{3}$/.test(code) && countries.alpha3ToAlpha2(code) !== undefined;
const yymmdd = /^\d{6}$/;

/**
 * Checks a PAXLST interchange against the guide's structure: the segment groups in order, then
 * each segment's elements where the guide's example puts them (qualifier, code or name
 * component, date format), and the counts and references that tie the envelope together.
 */
function expectGuideStructure(text: string) {
  expect(text.startsWith("UNA:+.? '")).toBe(true);
  const segments = parseEdifact(text);
  const keys = segments.map((segment) => (QUALIFIED.has(segment.tag) ? `${segment.tag}+${segment.elements[0]?.[0] ?? ''}` : segment.tag));
  expect(keys.join(' ') + ' ').toMatch(GUIDE_STRUCTURE);

  const find = (tag: string) => segments.filter((segment) => segment.tag === tag).map(trimmed);
  const [unb] = find('UNB');
  const [ung] = find('UNG');
  const [unh] = find('UNH');
  expect(unb[0]).toEqual(['UNOA', '4']);
  expect(unb[3]).toEqual([expect.stringMatching(yymmdd), expect.stringMatching(/^\d{4}$/)]);
  expect(ung.slice(0, 4)).toEqual([['PAXLST'], unb[1], unb[2], unb[3]]);
  expect(ung.slice(5)).toEqual([['UN'], ['D', unh[1][2]]]);
  expect(unh[1]).toEqual(['PAXLST', 'D', expect.stringMatching(/^\d\d[AB]$/), 'UN', 'IATA']);
  const unhAt = keys.indexOf('UNH');
  const untAt = keys.indexOf('UNT');
  expect(find('UNT')[0]).toEqual([[String(untAt - unhAt + 1)], unh[0]]);
  expect(find('UNE')[0]).toEqual([['1'], ung[4]]);
  expect(find('UNZ')[0]).toEqual([['1'], unb[4]]);
  expect(find('BGM')[0]).toEqual([['745']]);

  const persons = keys.filter((key) => key === 'NAD+FL').length;
  expect(find('CNT')[0]).toEqual([['42', String(persons)]]);
  let inPerson = false;
  segments.forEach((segment, index) => {
    const elements = trimmed(segment);
    const key = keys[index];
    if (key === 'NAD+FL') inPerson = true;
    if (key === 'NAD+MS') expect(elements.slice(0, 3)).toEqual([['MS'], [], []]);
    if (key === 'TDT+20') {
      // TDT+20+<flight identification>+++<carrier>: the carrier in C040, the flight number starting with it.
      expect(elements).toHaveLength(5);
      expect(elements.slice(2, 4)).toEqual([[], []]);
      expect(elements[1][0].startsWith(elements[4][0])).toBe(true);
    }
    if (key === 'DTM+189' || key === 'DTM+232') expect(elements).toEqual([[segment.elements[0][0], expect.stringMatching(/^\d{10}$/), '201']]);
    if (!inPerson && key.startsWith('LOC+')) expect(elements[1]).toEqual([expect.stringMatching(/^[A-Z]{3,4}$/)]);
    if (key === 'NAD+FL') {
      expect(elements.slice(0, 3)).toEqual([['FL'], [], []]);
      expect(elements[3].length).toBeGreaterThanOrEqual(2);
      expect(elements[3][0]).toMatch(/^[A-Z0-9 ]+$/);
    }
    if (key === 'ATT+2') expect(elements).toEqual([['2'], [], [expect.stringMatching(/^[MFUX]$/)]]);
    if (key === 'DTM+329' || key === 'DTM+36') expect(elements).toEqual([[segment.elements[0][0], expect.stringMatching(yymmdd)]]);
    if (inPerson && (key === 'LOC+178' || key === 'LOC+179')) expect(elements[1]).toEqual([expect.stringMatching(/^[A-Z]{3,4}$/)]);
    // Place of birth: a name, in the fourth component of C517 (no code).
    if (key === 'LOC+180') expect(elements[1].slice(0, 3)).toEqual(['', '', '']);
    if (key === 'NAT+2') expect(elements).toEqual([['2'], [expect.any(String)]]);
    if (key === 'NAT+2') expect(isAlpha3(elements[1][0])).toBe(true);
    // DOC+<document type>+<number>: the type alone in C002.
    if (key === 'DOC') expect(elements).toEqual([[expect.stringMatching(/^(P|I|V|A|C|AC|IP|F)$/)], [expect.stringMatching(/^[A-Z0-9][A-Z0-9/-]*$/)]]);
    if (key === 'LOC+91') expect(isAlpha3(elements[1][0]) && elements[1].length === 1).toBe(true);
  });
}

describe('GET /flight/<id>/passenger as a PAXLST message', () => {
  let testApp: TestApp;
  let reader: string;
  let writer: string;
  let flightId: number;

  beforeAll(async () => {
    testApp = await startTestApp('passenger_paxlst', { PAXLST_SENDER_ID: 'BROKERGW', PAXLST_RECIPIENT_ID: 'APISPT', PAXLST_REPORTING_PARTY: "Aquila Jet+Co's" });
    reader = `Bearer ${await testApp.token(['passengers:read', 'timeline:read'], 'apis-clerk')}`;
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    writer = `Bearer ${await testApp.token(['passengers:write'])}`;
    const created = [
      passengerRecord(1, { surname: 'Wróbel', name: 'Łukasz Piotr', nazionalita: 'PL', luogonascita: 'PL', issuingstate: 'PL', numberdoc: 'EA0012345', date_born: '1979-03-04', scadenza: '2030-07-08' }),
      passengerRecord(2, { surname: 'Nguyễn', name: 'Văn An', nazionalita: 'VN', luogonascita: 'VN', gender: 'F', typedoc: 'I' }),
      passengerRecord(3, { surname: 'Groß-Müller', name: 'Jürgen', nazionalita: 'DE', luogonascita: 'AT', issuingstate: 'DE' }),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
  });
  afterAll(() => testApp.close());

  it('writes an interchange an independent EDIFACT parser reads segment by segment', async () => {
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger`).set('Authorization', reader).set('Accept', 'application/edifact').buffer(true).parse(binary).expect(200);
    expect(res.headers['content-type']).toBe('application/edifact');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="flight-${flightId}-passengers-v1.edi"`);
    expect(res.headers.etag).toBe('"1-paxlst"');
    const text = (res.body as Buffer).toString('latin1');
    expect(text.startsWith("UNA:+.? '")).toBe(true);
    expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
    // The reporting party's + and ' travel released.
    expect(text).toContain("NAD+MS+++AQUILA JET?+CO?'S'");

    const segments = parseEdifact(text);
    const tags = segments.map((segment) => segment.tag);
    const unb = segments[0];
    expect(unb.tag).toBe('UNB');
    expect(unb.elements[0]).toEqual(['UNOA', '4']);
    expect(unb.elements[1]).toEqual(['BROKERGW']);
    expect(unb.elements[2]).toEqual(['APISPT']);
    expect(unb.elements[3][0]).toMatch(/^\d{6}$/);
    expect(unb.elements[3][1]).toMatch(/^\d{4}$/);
    const reference = unb.elements[4][0];

    expect(show(segments[1])).toBe(`UNG+PAXLST+BROKERGW+APISPT+${unb.elements[3].join(':')}+${reference}+UN+D:05B`);
    const header = segments.slice(2, 10).map(show);
    expect(header).toEqual([
      'UNH+1+PAXLST:D:05B:UN:IATA',
      'BGM+745',
      "NAD+MS+++AQUILA JET+CO'S",
      'TDT+20+IFL100+++IFL',
      'LOC+125+LIS',
      'DTM+189:2612150800:201',
      'LOC+87+FCO',
      'DTM+232:2612151200:201',
    ]);
    const passengers = segments.slice(10, 10 + 30).map(show);
    expect(passengers).toEqual([
      'NAD+FL+++WROBEL:LUKASZ:PIOTR', 'ATT+2++M', 'DTM+329:790304', 'LOC+178+LIS', 'LOC+179+FCO', 'LOC+180+:::POL', 'NAT+2+POL', 'DOC+P+EA0012345', 'DTM+36:300708', 'LOC+91+POL',
      'NAD+FL+++NGUYEN:VAN:AN', 'ATT+2++F', 'DTM+329:800501', 'LOC+178+LIS', 'LOC+179+FCO', 'LOC+180+:::VNM', 'NAT+2+VNM', 'DOC+I+YA1000002', 'DTM+36:310101', 'LOC+91+ITA',
      'NAD+FL+++GROSS MUELLER:JUERGEN', 'ATT+2++M', 'DTM+329:800501', 'LOC+178+LIS', 'LOC+179+FCO', 'LOC+180+:::AUT', 'NAT+2+DEU', 'DOC+P+YA1000003', 'DTM+36:310101', 'LOC+91+DEU',
    ]);
    expect(segments.slice(40).map(show)).toEqual(['CNT+42:3', `UNT+${tags.indexOf('UNT') - tags.indexOf('UNH') + 1}+1`, `UNE+1+${reference}`, `UNZ+1+${reference}`]);
    // UNH to UNT: 8 header segments, 10 per passenger, CNT and UNT.
    expect(tags.indexOf('UNT') - tags.indexOf('UNH') + 1).toBe(8 + 3 * 10 + 2);

    const exports = (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports;
    expect(exports[0]).toMatchObject({ subject: 'apis-clerk', format: 'paxlst', version: 1 });
  });

  it('follows the structure of the PAXLST Implementation Guide’s air-mode example, through REST and a GraphQL link', async () => {
    const rest = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger?format=paxlst`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    expectGuideStructure((rest.body as Buffer).toString('latin1'));

    const { body } = await testApp.graphql(PassengerListDownloadUrlDocument, { flightId, format: 'paxlst' }, await testApp.token(['passengers:read', 'timeline:read'], 'apis-clerk'));
    expect(body.errors).toBeUndefined();
    const url = new URL(body.data!.passengerListDownloadUrl.url);
    const linked = await request(testApp.app).get(url.pathname + url.search).buffer(true).parse(binary).expect(200);
    expect(linked.headers['content-type']).toBe('application/edifact');
    expectGuideStructure((linked.body as Buffer).toString('latin1'));

    // A flight without a list: the header and the flight, no person, CNT+42:0.
    const empty = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-17T08:00:00Z', arrivalAt: '2026-12-17T11:00:00Z', flightNumber: 'BA117' });
    const none = await request(testApp.app).get(`/api/broker/v0/flight/${empty}/passenger?format=paxlst`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    const text = (none.body as Buffer).toString('latin1');
    expectGuideStructure(text);
    expect(text).toContain("TDT+20+BA117+++BA'");
    expect(text).toContain("CNT+42:0'");
  });

  it('names the carrier in TDT from the flight number’s designator', () => {
    expect([carrierOf('IFL100'), carrierOf('BA117'), carrierOf('U21234'), carrierOf('AZ 611'), carrierOf('N123AB')]).toEqual(['IFL', 'BA', 'U2', 'AZ', undefined]);
  });

  it('transliterates names by ICAO Doc 9303', () => {
    expect(transliterateIcao('Ærøskøbing Åsa Þór Œuvre Łódź Ĳssel')).toEqual({ text: 'AEROESKOEBING AASA THOR OEUVRE LODZ IJSSEL', untransliterable: [] });
    expect(transliterateIcao("O'Brien-Smith  Nguyễn Erdős").text).toBe('OBRIEN SMITH NGUYEN ERDOS');
    // Cyrillic by the table's main column, and with the exceptions of the language named.
    expect(transliterateIcao('Щербаков Юлия Ёлкина Подъячев Ильич').text).toBe('SHCHERBAKOV IULIIA ELKINA PODIEIACHEV ILICH');
    expect(transliterateIcao('Григорович Їжак Євген', 'ukr').text).toBe('GRYGOROVYCH IZHAK IEVGEN');
    expect(transliterateIcao('Багдановіч Арлоў Алёна', 'bel').text).toBe('BAHDANOVICH ARLOU ALIONA');
    expect(transliterateIcao('Щерев', 'bul').text).toBe('SHTEREV');
    expect(transliterateIcao('Ѓорѓи Џафер Ќосе', 'mkd').text).toBe('GJORGJI DJAFER KJOSE');
    expect(transliterateIcao('Ђорђе Љиљана Њего Жарко Хаџић Ћирић', 'srp').text).toBe('DORDE LJILJANA NJEGO ZARKO HADZIC CIRIC');
    // What Doc 9303 gives no Latin form for is listed, never guessed.
    expect(transliterateIcao('Smith 小明')).toEqual({ text: 'SMITH', untransliterable: ['小', '明'] });
    expect(transliterateIcao('Παπαδόπουλος').untransliterable).toEqual(['Π', 'Α', 'Δ', 'Ό', 'Ο', 'Υ', 'Λ', 'Σ']);
    expect(transliterateIcao('Lee 😀').untransliterable).toEqual(['😀']);
  });

  it('writes Cyrillic names as ICAO Doc 9303 transliterates them, with the exceptions of the document’s issuing state’s language', async () => {
    const id = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-18T08:00:00Z', arrivalAt: '2026-12-18T11:00:00Z' });
    const created = [
      passengerRecord(401, { surname: 'Щербаков', name: 'Юлия Сергеевна', nazionalita: 'RU', luogonascita: 'RU', issuingstate: 'RU' }),
      passengerRecord(402, { surname: 'Шевченко', name: 'Тарас Григорович', nazionalita: 'UA', luogonascita: 'UA', issuingstate: 'UA' }),
      passengerRecord(403, { surname: 'Багдановіч', name: 'Максім', nazionalita: 'BY', luogonascita: 'BY', issuingstate: 'BY' }),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${id}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${id}/passenger?format=paxlst`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    const text = (res.body as Buffer).toString('latin1');
    expectGuideStructure(text);
    expect(parseEdifact(text).filter((segment) => segment.tag === 'NAD' && segment.elements[0][0] === 'FL').map(show)).toEqual([
      'NAD+FL+++SHCHERBAKOV:IULIIA:SERGEEVNA',
      'NAD+FL+++SHEVCHENKO:TARAS:GRYGOROVYCH',
      'NAD+FL+++BAHDANOVICH:MAKSIM',
    ]);
  });

  it('is a 422 listing every passenger whose name has characters ICAO Doc 9303 gives no Latin form for, and writes no part of any', async () => {
    const id = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-19T08:00:00Z', arrivalAt: '2026-12-19T11:00:00Z' });
    const created = [
      passengerRecord(501, { surname: 'Rossi', name: 'Maria' }),
      passengerRecord(502, { surname: 'Smith', name: '小明', nazionalita: 'CN' }),
      passengerRecord(503, { surname: '山田', name: '太郎', nazionalita: 'JP' }),
      passengerRecord(504, { surname: 'محمد', name: 'Ali', nazionalita: 'EG' }),
      passengerRecord(505, { surname: 'כהן', name: 'David', nazionalita: 'IL' }),
      passengerRecord(506, { surname: 'Παπαδόπουλος', name: 'Νίκος', nazionalita: 'GR' }),
      passengerRecord(507, { surname: 'Lee', name: 'Ann 😀' }),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${id}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${id}/passenger?format=paxlst`).set('Authorization', reader).expect(422);
    expect(res.body.error.code).toBe('UNPROCESSABLE');
    expect(res.body.error.message).toMatch(/^PAXLST cannot carry the names of 6 passengers \(rows 2, 3, 4, 5, 6, 7\)/);
    expect(res.body.error.message).toMatch(/machine-readable zone/);
    expect(res.body.error.message).toMatch(/xlsx and csv/);
    expect(res.body.error.details.map((detail: { row: number; id: number; field: string; value: string }) => [detail.row, detail.id, detail.field, detail.value])).toEqual([
      [2, 502, 'name', '小明'],
      [3, 503, 'surname', '山田'],
      [3, 503, 'name', '太郎'],
      [4, 504, 'surname', 'محمد'],
      [5, 505, 'surname', 'כהן'],
      [6, 506, 'surname', 'ΠΑΠΑΔΌΠΟΥΛΟΣ'],
      [6, 506, 'name', 'ΝΊΚΟΣ'],
      [7, 507, 'name', 'ANN 😀'],
    ]);
    expect(res.body.error.details[0].message).toBe(
      'Passenger 2 (id 502): given names "小明" has characters with no Latin transliteration in ICAO Doc 9303: 小 (Han, U+5C0F), 明 (Han, U+660E); store the name\'s Latin form as printed in the passport\'s machine-readable zone',
    );
    // Refused before anything is recorded: no export in the history.
    expect((await testApp.graphql(PassengerListExportsDocument, { flightId: id })).body.data!.passengerListExports).toEqual([]);
  });

  it('writes a name part of up to 70 characters whole, and refuses one longer with a 422 naming the passenger, never cutting it', async () => {
    // D.05B's party name component (C080 3036) holds 70 characters.
    const fits = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-20T08:00:00Z', arrivalAt: '2026-12-20T11:00:00Z' });
    const seventy = 'Wolfeschlegelsteinhausenbergerdorff'.repeat(2);
    await request(testApp.app)
      .post(`/api/broker/v0/flight/${fits}/passenger`)
      .set('Authorization', writer)
      .send({ created: [passengerRecord(601, { surname: seventy, name: 'Hubert Blaine' })], modified: [], deleted: [] })
      .expect(200);
    const ok = await request(testApp.app).get(`/api/broker/v0/flight/${fits}/passenger?format=paxlst`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    const text = (ok.body as Buffer).toString('latin1');
    expectGuideStructure(text);
    expect(text).toContain(`NAD+FL+++${seventy.toUpperCase()}:HUBERT:BLAINE'`);

    const long = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-21T08:00:00Z', arrivalAt: '2026-12-21T11:00:00Z' });
    const hundred = 'Wolfeschlegelsteinhausenbergerdorff '.repeat(3).slice(0, 100);
    const created = [
      passengerRecord(701, { surname: 'Rossi', name: 'Maria' }),
      passengerRecord(702, { surname: hundred, name: 'Hubert' }),
      // 65 characters as stored, 77 once ö is written OE.
      passengerRecord(703, { surname: 'Schönhöfer-'.repeat(5) + 'Schönhöfer', name: 'Jörg' }),
      passengerRecord(704, { surname: 'Bianchi', name: 'Maria Anna Beatrice Carla Donatella Elena Francesca Giulia Ilaria Lucia Nicoletta' }),
    ];
    await request(testApp.app).post(`/api/broker/v0/flight/${long}/passenger`).set('Authorization', writer).send({ created, modified: [], deleted: [] }).expect(200);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${long}/passenger?format=paxlst`).set('Authorization', reader).expect(422);
    expect(res.body.error.message).toMatch(/^PAXLST cannot carry the names of 3 passengers \(rows 2, 3, 4\): rows 2, 3, 4 have a name part longer than the 70 characters one PAXLST name component holds\. A name is never sent in part or cut/);
    expect(res.body.error.message).toMatch(/machine-readable zone/);
    expect(res.body.error.details.map((detail: Record<string, unknown>) => [detail.row, detail.id, detail.field, detail.length, detail.max])).toEqual([
      [2, 702, 'surname', 100, 70],
      [3, 703, 'surname', 77, 70],
      [4, 704, 'name', 75, 70],
    ]);
    expect(res.body.error.details[1].message).toBe(
      'Passenger 3 (id 703): the surname is 77 characters as PAXLST writes it ("SCHOENHOEFER SCHOENHOEFER SCHOENHOEFER SCHOENHOEFER SCHOENHOEFER SCHOENHOEFER"), over the 70 that one name component holds (C080 3036, an..70 in D.05B); store the name as printed in the passport\'s machine-readable zone',
    );
    expect(res.body.error.details[2].message).toMatch(/^Passenger 4 \(id 704\): the given names after the first are 75 characters/);
    expect((await testApp.graphql(PassengerListExportsDocument, { flightId: long })).body.data!.passengerListExports).toEqual([]);
  });

  it('writes a document number as stored, its - and / included (UNOA characters)', async () => {
    const id = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-22T08:00:00Z', arrivalAt: '2026-12-22T11:00:00Z' });
    await request(testApp.app)
      .post(`/api/broker/v0/flight/${id}/passenger`)
      .set('Authorization', writer)
      .send({ created: [passengerRecord(801, { numberdoc: 'AB-12/34' })], modified: [], deleted: [] })
      .expect(200);
    const res = await request(testApp.app).get(`/api/broker/v0/flight/${id}/passenger?format=paxlst`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
    const text = (res.body as Buffer).toString('latin1');
    expectGuideStructure(text);
    expect(text).toContain("DOC+P+AB-12/34'");
    expect(parseEdifact(text).filter((segment) => segment.tag === 'DOC').map(show)).toEqual(['DOC+P+AB-12/34']);
  });

  it('gives every interchange a control reference of its own, also two files made in the same second', async () => {
    // Only Date stands still: both files are made at the same instant, timers and I/O run as usual.
    jest.useFakeTimers({
      doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
      now: new Date(),
    });
    let texts: string[];
    try {
      texts = [];
      for (let index = 0; index < 3; index += 1) {
        const res = await request(testApp.app).get(`/api/broker/v0/flight/${flightId}/passenger?format=paxlst`).set('Authorization', reader).buffer(true).parse(binary).expect(200);
        texts.push((res.body as Buffer).toString('latin1'));
      }
    } finally {
      jest.useRealTimers();
    }
    const envelopes = texts.map((text) => {
      expectGuideStructure(text);
      const segments = parseEdifact(text);
      const find = (tag: string) => segments.find((segment) => segment.tag === tag)!;
      return { at: find('UNB').elements[3].join(':'), unb: find('UNB').elements[4][0], ung: find('UNG').elements[4][0], une: find('UNE').elements[1][0], unz: find('UNZ').elements[1][0] };
    });
    expect(new Set(envelopes.map((envelope) => envelope.at)).size).toBe(1);
    expect(new Set(envelopes.map((envelope) => envelope.unb)).size).toBe(3);
    // UNB 0020 is an..14; upper-case letters and digits are in UNOA.
    for (const envelope of envelopes) {
      expect(envelope.unb).toMatch(/^[0-9A-Z]{14}$/);
      expect([envelope.ung, envelope.une, envelope.unz]).toEqual([envelope.unb, envelope.unb, envelope.unb]);
    }
  });

  it('is a 422 naming the settings on a service without them', async () => {
    const other = await startTestApp('passenger_paxlst_unset');
    try {
      await createReferenceData(other);
      const id = await createFlight(other, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
      const res = await request(other.app).get(`/api/broker/v0/flight/${id}/passenger?format=paxlst`).set('Authorization', `Bearer ${await other.token()}`).expect(422);
      expect(res.body.error.message).toMatch(/PAXLST_SENDER_ID, PAXLST_RECIPIENT_ID and PAXLST_REPORTING_PARTY/);
    } finally {
      await other.close();
    }
  });
});
