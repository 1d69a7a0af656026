"""Bilingual concepts: the glossary (config/concepts.tsv) and finding its concepts in text."""

from papersearch.concepts.glossary import Concept, Glossary, GlossaryError, load
from papersearch.concepts.matcher import ConceptMatcher, Match, TermMatch, matcher

__all__ = ["Concept", "ConceptMatcher", "Glossary", "GlossaryError", "Match", "TermMatch", "load", "matcher"]
