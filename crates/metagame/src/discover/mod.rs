//! How each model is found: games played as the search's playouts play them, the model fitted on
//! half of them and checked on the other half. The models (`pieces`, `outlook`, `material`) say
//! nothing of how they were found, so that the knowledge holding them and the playouts reading
//! it sit below this module, and nothing below imports it.

mod material;
mod outlook;
mod pieces;
