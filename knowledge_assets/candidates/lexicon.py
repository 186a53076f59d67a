"""Closed word lists of Indonesian and English the term funnel consults.

They name kinds of words (function words, units, document-structure words, organisation
heads), never the terms of any particular document, so they hold for unseen documents too.
"""

from __future__ import annotations

INDONESIAN_STOPWORDS = frozenset(
    """
    ada adalah adapun agar akan akibat antar antara apa apabila atas atau bagi bahwa baik
    banyak bawah beberapa belum berapa berikut bersama bila bisa boleh bukan dalam dan dapat
    dari demikian dengan di dimana dua enam hal hanya harus hingga ialah ini itu jadi jika
    juga kami karena ke kedua kemudian kepada ketika kita lagi lain lainnya lebih lima luar
    maka mana masing maupun melainkan menjadi merupakan misalnya namun nya oleh pada paling
    para per pertama pun saat salah sama sampai sangat satu se sebagai sebagaimana sebagian
    sebelum sebuah secara sedang sedangkan sejak selama seluruh semua sendiri seperti
    serta sesuai setelah setiap suatu sudah tanpa telah tentang terdapat terhadap tersebut
    tetapi tidak tiap tiga untuk wajib yaitu yakni yang
    """.split()
)

ENGLISH_STOPWORDS = frozenset(
    """
    a about above after all also although an and another any are as at be because been
    before being below between both but by can could did do does down during each either
    etc every for from had has have he her here his how however i if in into is it its
    may might more most must neither no nor not of off on one only onto or other our out
    over per same shall she should since so some such than that the their them then there
    therefore these they this those through thus to two under until up upon very via was
    we were what when where whether which while who whom whose why will with within
    without would you your
    """.split()
)

STOPWORDS = INDONESIAN_STOPWORDS | ENGLISH_STOPWORDS

# Lowercase words that may sit inside a capitalised term: "Machine on Hand Hours",
# "Utilization of Availability", "Ready for Operation".
CONNECTORS = frozenset({"of", "on", "for", "to", "in", "per", "&"})

# Coordinators split a heading or a gloss into the separate terms it lists.
CONJUNCTIONS = frozenset({"and", "or", "dan", "atau", "serta", "&"})

# Generic units of measure only; domain units a glossary should explain (BCM) are not here.
UNITS = frozenset(
    """
    % bar c cm day days detik g hari hour hours hp hr hrs jam kg km kpa kw kwh l liter
    liters litre m m2 m3 menit min minggu minute minutes mm mpa mw persen percent psi rpm
    s sec second seconds t tahun ton tonne tonnes tons unit units week weeks year years
    bulan month months
    """.split()
)

# Words that name a part of a document rather than a concept; a heading or label made of
# them ("Purpose", "Tanggung Jawab", "Revisi Dokumen") is structure, not a term.
STRUCTURE_WORDS = frozenset(
    """
    appendix approval attachment aturan background bab bagian calculation catatan caution
    chapter contents contoh daftar definisi definition dokumen document equation example
    figure formula gambar halaman history interpretasi introduction jawab kebijakan
    keterangan lampiran langkah latar lingkup note overview page pendahuluan penjelasan
    perhatian peringatan persamaan persetujuan policy procedure prosedur purpose record
    reference referensi responsibility revisi revision riwayat ruang rule rumus scope
    section step sumber summary tabel table tanggung tujuan umum warning
    """.split()
)

# The head word that makes a phrase the name of a unit of an organisation or of a role.
ORGANISATION_HEADS = frozenset(
    """
    centre center committee company corporation department departemen departement direktur
    director division divisi foreman manager manajer officer planner superintendent
    supervisor team tim
    """.split()
)

# The head word that opens the name of a government body, as Indonesian names it head first
# ("Kementerian Keuangan", "Direktorat Jenderal Anggaran"). Heads that also open common nouns
# ("Badan Usaha": a business entity, "Lembaga Keuangan") are not here.
ORGANISATION_OPENERS = frozenset({"kementerian", "direktorat", "dinas", "sekretariat", "inspektorat"})

# Currency codes and signs: "Rp", "USD", and an amount glued to one ("USD2") is money, not a term.
CURRENCIES = frozenset({"rp", "idr", "usd", "us$", "eur", "sgd", "aud", "jpy", "cny"})

# Company legal forms: the phrase after "PT" is the issuer's name.
LEGAL_FORMS = frozenset({"pt", "cv", "tbk", "ltd", "inc", "llc", "gmbh", "plc", "corp"})

# Verbs after which a sentence defines its subject ("X adalah …", "X refers to …").
DEFINING_VERBS_INDONESIAN = ("adalah", "merupakan", "ialah", "yaitu", "didefinisikan sebagai")
DEFINING_VERBS_ENGLISH = ("is defined as", "are defined as", "refers to", "means")

# Verbs that file an event under a term: "recorded as a delay", "dicatat sebagai Delay".
CLASSIFYING_VERBS = frozenset(
    """
    classified coded counted recorded reported treated dianggap dicatat digolongkan
    dihitung dikategorikan dilaporkan
    """.split()
)
