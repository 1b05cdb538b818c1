"""Translations: the gettext catalogs under ``locale/`` (domain ``rules``: one plain sentence per
rule id, the rule id as ``msgctxt``) and their readers."""
