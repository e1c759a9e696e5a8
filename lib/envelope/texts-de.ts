import type { CATALOGUE, TEMPLATES } from './message-catalogue.js';
import type { TextsOf } from './message-makers.js';

/**
 * The German texts of every code of the layer (the compiler refuses a code without one). They take the same values
 * as the English ones; values that are English words (an entity's name, a type's description) are looked up in
 * `LAYER_TERMS_DE` first, so an answer does not mix languages where a term is known.
 */
const UNKNOWN_OF: Readonly<Record<string, string>> = {
  property: 'keine bekannte Eigenschaft',
  'parameter of this operation': 'kein bekannter Parameter dieses Vorgangs',
  'criteria field': 'kein bekanntes Kriterienfeld',
};

const sekunden = (n: number) => `${n} Sekunde${n === 1 ? '' : 'n'}`;

export const LAYER_TEXTS_DE: TextsOf<typeof CATALOGUE> = {
  Request_Malformed: 'Die Anfrage ist kein gültiges HTTP.',
  Request_HeadersTooLarge: 'Die Kopfzeilen der Anfrage sind größer, als der Server annimmt.',
  Request_ReceiveTimeout: 'Die Anfrage wurde nicht rechtzeitig vollständig empfangen.',
  Request_UriTooLong: ({ maxLength }) => `Die Abfragezeichenfolge ist länger als die ${maxLength} Zeichen, die der Server annimmt.`,
  Request_MalformedJson: ({ why }) => `Der Inhalt der Anfrage ist kein gültiges JSON${why ? `: ${why}` : ''}.`,
  Request_TooDeep: ({ maxDepth }) => `Der Inhalt der Anfrage verschachtelt Objekte oder Listen tiefer als ${maxDepth} Ebenen.`,
  Request_TooLarge: ({ limitBytes, limitItems }) => limitItems !== undefined
    ? `Der Inhalt der Anfrage enthält mehr als die ${limitItems} Schlüssel und Listenelemente, die dieser Vorgang annimmt.`
    : `Der Inhalt der Anfrage ist größer als ${limitBytes === undefined ? 'der Server annimmt' : `die ${limitBytes} Bytes, die der Server annimmt`}.`,
  Request_UnsupportedMediaType: ({ accepted = 'application/json', sent }) =>
    `Der Inhalt der Anfrage muss als ${accepted} gesendet werden${sent ? `, nicht als ${sent}` : ''}.`,
  Request_Invalid: ({ reason }) => `Die Anfrage konnte nicht verarbeitet werden: ${reason}`,
  Request_Throttled: ({ busy, seconds }) =>
    `${busy ? 'Gerade werden zu viele Anmeldungen geprüft.' : 'Zu viele Anmeldeversuche.'} Versuchen Sie es in ${sekunden(seconds)} erneut.`,
  Request_Timeout: ({ seconds }) =>
    `Das Lesen wurde abgebrochen: es dauerte länger als ${seconds === undefined ? 'der Server erlaubt' : `die ${sekunden(seconds)}, die der Server erlaubt`}. `
    + 'Schränken Sie die Kriterien ein oder fordern Sie eine kleinere Seite an und versuchen Sie es erneut.',
  Request_OutcomeUnknown: ({ seconds }) =>
    `Der Vorgang wurde nicht innerhalb von ${sekunden(seconds)} abgeschlossen und kann noch abgeschlossen werden; ob er gespeichert wurde, ist unbekannt. `
    + 'Senden Sie ihn mit demselben Idempotency-Key erneut, um sein Ergebnis zu erhalten, oder prüfen Sie vor dem erneuten Senden ohne Schlüssel.',
  Request_IdempotencyKeyInvalid: 'Der Idempotency-Key-Header muss aus 1 bis 255 sichtbaren ASCII-Zeichen bestehen (keine Leer- oder Steuerzeichen).',
  Request_IdempotencyMismatch:
    'Dieser Idempotency-Key wurde auf diesem Pfad bereits mit einem anderen Inhalt verwendet. Verwenden Sie für eine andere Anfrage einen neuen Schlüssel.',
  Request_InProgress:
    'Eine Anfrage mit diesem Idempotency-Key läuft noch. Versuchen Sie es nach der in Retry-After genannten Zeit erneut, um ihr Ergebnis zu erhalten.',
  Request_IdempotencyOutcomeUnknown:
    'Die erste Anfrage mit diesem Idempotency-Key endete ohne bekanntes Ergebnis (der Server wurde beendet oder der Speicher fiel beim Speichern aus): '
    + 'sie wurde vielleicht gespeichert, vielleicht nicht. Prüfen Sie das und senden Sie sie bei Bedarf mit einem neuen Schlüssel erneut.',
  Request_ReplayWithoutResult:
    'Dies wiederholt eine frühere Anfrage mit demselben Idempotency-Key; ihr Ergebnis war zu groß, um es aufzubewahren. Lesen Sie die Ressource, um es zu sehen.',

  Route_NotFound: ({ method, path }) => `Unter ${method} ${path} gibt es keine Ressource.`,
  Route_MethodNotAllowed: ({ method, path, allow }) => `Die Methode ${method} ist für ${path} nicht erlaubt. Erlaubt: ${allow || 'keine'}.`,

  Security_Unauthenticated: 'Anmeldung erforderlich: senden Sie ein Bearer-Token oder melden Sie sich an.',
  Security_TokenExpired: 'Das Zugriffstoken ist abgelaufen. Erneuern Sie es oder melden Sie sich erneut an.',
  Security_TokenInvalid: 'Das Zugriffstoken ist für diesen Server nicht gültig.',
  Security_Forbidden: 'Sie dürfen diesen Vorgang nicht ausführen.',
  Security_CsrfRejected:
    'Websiteübergreifende Anfrage abgelehnt: eine Änderung mit Sitzungscookie muss von dieser Website oder einem erlaubten Ursprung kommen (senden Sie einen Origin-Header).',
  Security_InvalidAccessToken: 'Ungültiges Zugriffstoken',
  Security_InvalidRefreshToken: 'Ungültiges Aktualisierungstoken',
  Login_InvalidCredentials: 'Ungültiger Benutzername oder ungültiges Kennwort.',

  Entity_NotFound: ({ entity, id }) => `${entity} mit der ID ${id} wurde nicht gefunden.`,
  Entity_Concurrency: ({ record = 'Der Datensatz', sent, now, tag }) =>
    tag === 'missing' ? `${record} existiert nicht, daher gilt If-Match: * nicht; es wurde nichts gespeichert.`
      : tag === 'stale' ? `${record} wurde von jemand anderem geändert: das in If-Match gesendete ETag ist nicht mehr aktuell. Laden Sie neu und versuchen Sie es erneut.`
        : `${record} wurde von jemand anderem geändert: Revision ${sent} ist nicht mehr aktuell (jetzt ${now}). Laden Sie neu und versuchen Sie es erneut.`,
  Entity_Duplicate: ({ property, holder, label, value }) => property
    ? (holder ? `${property}: ${holder} hat bereits ${label ?? property} ${String(value)}; der Wert muss eindeutig sein.`
      : `${property}: ein anderer Datensatz hat bereits diesen Wert; er muss eindeutig sein.`)
    : 'Ein anderer Datensatz hat bereits diese Werte; sie müssen eindeutig sein.',
  Entity_InUse: ({ entity, id, referrers, one }) => `${entity} ${id} kann nicht gelöscht werden: ${referrers} ${one ? 'verweist' : 'verweisen'} darauf.`,
  Document_TooManyLines: ({ entity, maxLines }) =>
    `${entity} kann höchstens ${maxLines} Positionen haben: diese Änderung würde das überschreiten, daher wurde nichts gespeichert.`,
  LookupTable_NotFound: ({ table }) => `Die Nachschlagetabelle '${table}' ist im globalen Nachschlage-Cache nicht vorhanden.`,
  Service_MaxRows: ({ maxRows }) => `Nur die ersten ${maxRows} Zeilen werden geliefert. Schränken Sie die Kriterien ein oder blättern Sie mit skip und take.`,
  Operator_NotSupported: ({ operator, field, known }) => field
    ? `Der Operator ${operator} wird für ${field} nicht unterstützt.`
    : `Der Operator '${operator}' wird nicht unterstützt. Verwenden Sie einen von ${known?.join(', ')}.`,

  Input_Required: ({ why }) => `ist erforderlich${why ? `: ${why}` : ''}.`,
  Input_InvalidType: ({ expected }) => `muss ${expected} sein.`,
  Input_InvalidValue: ({ rule }) => `muss ${rule}.`,
  Input_OutOfRange: ({ min, max, after = '' }) => `muss zwischen ${min} und ${max} liegen${after}.`,
  Input_TooManyDecimals: ({ scale }) => scale === 0 ? 'muss eine ganze Zahl sein: Nachkommastellen sind nicht erlaubt.'
    : `darf höchstens ${scale} Nachkommastelle${scale === 1 ? '' : 'n'} haben.`,
  Amount_TooLarge: ({ amount, limit }) =>
    `Ein Betrag von ${amount} ist zu groß: Beträge müssen kleiner als ${limit} sein (11 Stellen vor dem Dezimalpunkt).`,
  Input_TooLong: ({ max }) => `darf höchstens ${max} Zeichen lang sein.`,
  Input_TooShort: ({ min }) => `muss mindestens ${min} Zeichen lang sein.`,
  Input_UnknownProperty: ({ of = 'property' }) => `ist ${UNKNOWN_OF[of] ?? `kein bekanntes Element (${of})`}.`,
  Input_Duplicate: ({ caseInsensitive }) =>
    `wird mehr als einmal angegeben${caseInsensitive ? ' (Eigenschaftsnamen werden ohne Beachtung der Groß-/Kleinschreibung verglichen)' : ''}: senden Sie ihn einmal.`,
  Input_ReservedName: 'ist ein reservierter Name, niemals eine Eigenschaft.',
  Input_Invalid: ({ problem }) => `ist nicht gültig: ${problem}.`,
  Input_InvalidCursor: ({ why }) => why,
  Criteria_ValueCount: ({ field, takes, operator, got }) =>
    operator ? `Der Operator ${operator} für ${field} nimmt ${takes}, erhalten: ${got}.` : `${field} nimmt ${takes}.`,

  Storage_Unavailable: 'Der Datenspeicher ist vorübergehend nicht erreichbar. Bitte versuchen Sie es in Kürze erneut.',
  Storage_OutcomeUnknown:
    'Die Verbindung zum Datenspeicher ging beim Speichern der Änderung verloren: sie wurde vielleicht gespeichert, vielleicht nicht. '
    + 'Lesen Sie die Ressource, bevor Sie eine Änderung wiederholen, die nicht doppelt erfolgen darf.',
  Health_NotReady: ({ down }) => `${down.join(' und ')} nicht erreichbar: der Server ist nicht bereit.`,
  Exception_Unhandled: ({ detail = '' }) => `Ein unerwarteter Serverfehler ist aufgetreten. Bitte wenden Sie sich an Ihren Systemadministrator.${detail}`,
  Messages_Truncated: ({ max }) =>
    `Es wurden mehr Probleme gefunden als die ${max} aufgeführten: beheben Sie diese und senden Sie die Anfrage erneut, um die übrigen zu sehen.`,

  User_Exists: ({ userName }) => `Der Benutzer '${userName}' existiert bereits.`,
  User_NotFound: ({ userName }) => `Der Benutzer '${userName}' wurde nicht gefunden.`,
  User_AttributeInvalid: ({ problem }) => `Ungültig: ${problem}.`,
  User_Disabled: ({ userName }) => `Der Benutzer '${userName}' ist deaktiviert.`,
  User_CookieSessionsKept: ({ userName, reason }) =>
    `Die Cookie-Sitzungen des Benutzers '${userName}' konnten nicht gelöscht werden (${reason}); sie werden trotzdem abgewiesen und laufen von selbst ab.`,
};

/** The German templates of codes made from a resource's name. */
export const LAYER_TEMPLATES_DE: { readonly [K in keyof typeof TEMPLATES]: (typeof TEMPLATES)[K] } = {
  Resource_InvalidLookup: ({ field, value, table }) => `${field} ${value} ist kein aktiver Eintrag der Nachschlagetabelle ${table}.`,
  Resource_UnknownReference: ({ entity, id }) => `${entity} mit der ID ${id} wurde nicht gefunden.`,
};

/** English words the layer passes as values, in German (an unknown one is shown as it is). */
export const LAYER_TERMS_DE: Readonly<Record<string, string>> = {
  'The record': 'Der Datensatz',
  'a string': 'ein Text',
  'a number': 'eine Zahl',
  'a finite number': 'eine endliche Zahl',
  'a number (a JSON number, not text)': 'eine Zahl (eine JSON-Zahl, kein Text)',
  'an integer': 'eine ganze Zahl',
  'true or false': 'true oder false',
  'a JSON object': 'ein JSON-Objekt',
  'an array': 'eine Liste',
  'an ISO 8601 date, e.g. 2024-05-31 or 2024-05-31T14:30:00Z': 'ein Datum nach ISO 8601, z. B. 2024-05-31 oder 2024-05-31T14:30:00Z',
  ' once its offset is applied': ' nach Anwendung seines Offsets',
  'other records': 'andere Datensätze',
};
