"""Publishing: the static decks (build_slides, deck, deck_tables, deck_pages, slides_template/,
slide_assets/), their PDF handouts (handouts) and the book (build_book, book/), made from the
committed notebooks, their HTML cleaned (sanitize). For readers and teachers: make slides, make
handouts, make book."""
